;; Workload 6: the 10-line request compiled and run cold. Expected 6.
(let* ((config '(:name "job" :count 2))
       (items '("ab" "c" "de"))
       (out ""))
  (dolist (x items)
    (if (= (length x) 2)
        (setq out (concat out x (number-to-string (plist-get config :count))))))
  (length out))
