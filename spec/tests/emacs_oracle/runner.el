;;; runner.el --- evaluate a batch of ptc scripts in GNU Emacs, the oracle  -*- lexical-binding: t -*-
;;
;; Usage: emacs --batch -Q -l runner.el INPUT OUTPUT
;; INPUT holds one (ID SCRIPT) form per case. Each SCRIPT is read form by form and
;; evaluated with lexical binding; OUTPUT gets one line per case:
;;   ID <TAB> value|error|skip <TAB> HEX
;; where HEX is the UTF-8 of `prin1-to-string' of the last form's value, or of the error
;; data (its car is the error kind), or `skip' with no text for a script that redefines an
;; Emacs function (outside the shared subset). Functions and macros a script defines are
;; removed after it, so cases do not see each other's definitions.
;;
;; Shims for what Emacs 28 lacks and the dialect has (issue 10):
;; - `take' (Emacs 29): the first N elements of LIST, as a new list.
;; - one-argument `sort' (Emacs 30): an ascending sorted copy by `value<' (numbers
;;   numerically, strings and symbols by name, lists lexicographically; mixed types error).
;; - `incf'/`decf' (Emacs 31; earlier only through the obsolete `cl'): `cl-incf'/`cl-decf'.
;; - `json-encode' and friends: Emacs 28 autoloads them only after (require 'json).

(require 'subr-x)
(require 'cl-lib)
(require 'json)

(unless (fboundp 'incf) (defalias 'incf 'cl-incf))
(unless (fboundp 'decf) (defalias 'decf 'cl-decf))

(unless (fboundp 'take)
  (defun take (n list)
    (let (out)
      (while (and (> n 0) list)
        (push (car list) out)
        (setq list (cdr list) n (1- n)))
      (nreverse out))))

(defun ptc-oracle--value< (a b)
  (cond ((and (numberp a) (numberp b)) (< a b))
        ((and (stringp a) (stringp b)) (string< a b))
        ((and (symbolp a) (symbolp b)) (string< (symbol-name a) (symbol-name b)))
        ((and (listp a) (listp b))
         (let (result done)
           (while (not done)
             (cond ((and (null a) (null b)) (setq done t))
                   ((null a) (setq result t done t))
                   ((null b) (setq done t))
                   ((ptc-oracle--value< (car a) (car b)) (setq result t done t))
                   ((ptc-oracle--value< (car b) (car a)) (setq done t))
                   (t (setq a (cdr a) b (cdr b)))))
           result))
        (t (signal 'wrong-type-argument (list 'value< a b)))))

(advice-add 'sort :around
            (lambda (original seq &rest rest)
              (if rest
                  (apply original seq rest)
                (funcall original (copy-sequence seq) #'ptc-oracle--value<))))

(defun ptc-oracle--forms (script)
  (let ((forms nil) (pos 0) (done nil))
    (while (not done)
      (condition-case nil
          (let ((read (read-from-string script pos)))
            (push (car read) forms)
            (setq pos (cdr read)))
        (end-of-file (setq done t))))
    (nreverse forms)))

(defun ptc-oracle--eval (script)
  (let* ((forms (ptc-oracle--forms script))
         (defined (delq nil (mapcar (lambda (form)
                                      (and (consp form) (memq (car form) '(defun defmacro))
                                           (consp (cdr form)) (symbolp (cadr form))
                                           (cadr form)))
                                    forms)))
         (value nil))
    ;; Redefining an Emacs function (`(defun if ...)`) is outside the shared subset, and
    ;; would break this runner: such a case is skipped.
    (when (cl-some #'fboundp defined)
      (throw 'ptc-oracle--skip nil))
    (unwind-protect
        (dolist (form forms value)
          (setq value (eval form t)))
      (mapc #'fmakunbound defined))))

(defun ptc-oracle--hex (text)
  (mapconcat (lambda (byte) (format "%02x" byte)) (encode-coding-string text 'utf-8) ""))

(let* ((input (nth 0 command-line-args-left))
       (output (nth 1 command-line-args-left))
       (cases (with-temp-buffer
                (let ((coding-system-for-read 'utf-8))
                  (insert-file-contents input))
                (goto-char (point-min))
                (let (found)
                  (condition-case nil
                      (while t (push (read (current-buffer)) found))
                    (end-of-file nil))
                  (nreverse found))))
       (lines nil))
  (setq command-line-args-left nil)
  (setq max-lisp-eval-depth 1600)
  (dolist (case cases)
    (let ((result (condition-case err
                      (or (catch 'ptc-oracle--skip
                            ;; Outside any mode: string-match sees the standard syntax table.
                            (with-syntax-table (standard-syntax-table)
                              (list "value" (prin1-to-string (ptc-oracle--eval (nth 1 case))))))
                          (list "skip" ""))
                    ((debug t) (list "error" (prin1-to-string err))))))
      (push (format "%s\t%s\t%s\n" (nth 0 case) (nth 0 result) (ptc-oracle--hex (nth 1 result)))
            lines)))
  (let ((coding-system-for-write 'utf-8-unix))
    (with-temp-file output
      (apply #'insert (nreverse lines)))))
