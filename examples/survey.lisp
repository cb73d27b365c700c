;; Survey this workspace with ptc's built-in read-only tools:
;; the package name of every crate, and the files that forbid unsafe code.
(defun package-name (text)
  (let ((name nil))
    (dolist (line (split-string text "\n" t))
      (when (and (null name) (string-search "name = " line))
        (setq name (nth 1 (split-string line "\"")))))
    name))

(let* ((manifests (split-string (Glob :pattern "*/Cargo.toml") "\n" t))
       (heads (parallel-map (lambda (m) (Read :file_path m :limit 5)) manifests))
       (forbid (split-string (Grep :pattern "forbid\\(unsafe_code\\)" :glob "*.rs") "\n" t)))
  (list :crates (mapcar 'package-name heads)
        :forbid-unsafe (length forbid)))
