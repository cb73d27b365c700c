;; Workload 1: fib(25), recursive (call overhead). Expected 75025.
(defun fib (n)
  (if (< n 2)
      n
    (+ (fib (- n 1)) (fib (- n 2)))))
(fib 25)
