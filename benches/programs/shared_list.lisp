;; Workload 8: pass one shared N-element list to a primitive N times (accounting
;; scaling). @N@ is replaced by the host. Expected N*(N-1).
(let ((xs nil)
      (total 0))
  (dotimes (i @N@)
    (push i xs))
  (dotimes (i @N@)
    (setq total (+ total (nth 0 xs))))
  total)
