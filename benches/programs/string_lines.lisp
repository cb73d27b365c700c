;; Workload 4: split ~100 KB of text into lines, keep those containing "needle", join;
;; the answer is the joined length. The text comes from the host (tool `text`, an `Arc` clone).
(let ((kept nil))
  (dolist (line (split-string (text) "\n"))
    (when (string-search "needle" line)
      (push line kept)))
  (length (string-join (reverse kept) "\n")))
