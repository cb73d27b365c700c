;; Issue #16: one primitive call with two small arguments, @N@ times; counts non-nil results.
(let ((p '(:a 1))
      (al '((a 1)))
      (s "ab")
      (x nil)
      (n 0))
  (dotimes (i @N@)
    (setq x @EXPR@)
    (when x
      (setq n (+ n 1))))
  n)
