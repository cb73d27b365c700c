;; Issue #16: a ~100 KiB string built by @N@ concats, split on newlines, joined with
;; commas, upcased; the length.
(let ((s ""))
  (dotimes (i @N@)
    (setq s (concat s "line " (number-to-string i) ": lorem ipsum dolor sit amet, consectetur\n")))
  (length (upcase (string-join (split-string s "\n") ","))))
