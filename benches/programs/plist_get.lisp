;; Issue #16: every key of a 50-entry plist looked up @ROUNDS@ times; sum of the values.
(let ((plist '(@PLIST@))
      (keys '(@KEYS@))
      (total 0))
  (dotimes (r @ROUNDS@)
    (dolist (k keys)
      (setq total (+ total (plist-get plist k)))))
  total)
