;; Workload 9: 256 calls of a tool that sleeps 1 ms, as one parallel batch; the host runs
;; them 16 at a time. Expected 256 (results counted).
(let ((ids nil))
  (dotimes (i 256)
    (push i ids))
  (length (parallel-map (lambda (i) (sleep :id i)) ids)))
