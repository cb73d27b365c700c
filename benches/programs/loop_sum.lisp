;; Workload 2: sum 0..999999 in a loop inside a function (dispatch). Expected 499999500000.
(defun sum-below (n)
  (let ((s 0))
    (dotimes (i n)
      (setq s (+ s i)))
    s))
(sum-below 1000000)
