;;; ptc-test.el --- ERT tests of ptc.el against a real `ptc serve' -*- lexical-binding: t; -*-

;;; Commentary:

;; `bash .ci/emacs.sh' runs these tests under Emacs in batch mode (-Q),
;; with the `ptc' binary named by PTC_BIN (default: `ptc' on PATH), after
;; byte-compiling and checkdoc-ing both files.  Every test starts its own
;; `ptc serve' and stops it afterwards.

;;; Code:

(require 'ert)
(require 'json)
(require 'ptc)

(setq ptc-program (or (getenv "PTC_BIN") "ptc"))

(defmacro ptc-test--with-connection (var &rest body)
  "Bind VAR to a fresh connection around BODY, then stop it."
  (declare (indent 1))
  `(let ((,var (ptc-start)))
     (unwind-protect (progn ,@body)
       (ptc-stop ,var))))

(defun ptc-test--wait-until (predicate &optional seconds)
  "Process output and timers until PREDICATE is true, at most SECONDS (5)."
  (let ((deadline (+ (float-time) (or seconds 5))))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.02))
    (funcall predicate)))

(defconst ptc-test--weather-schema
  '(:type "object" :properties (:city (:type "string")) :required ("city")))

(defun ptc-test--statuses (outcome)
  "Return the audit status of each call in OUTCOME."
  (mapcar (lambda (call) (plist-get call :status)) (plist-get outcome :calls)))

(ert-deftest ptc-test-handshake ()
  "The connection speaks the protocol version and knows the engine's budgets."
  (ptc-test--with-connection conn
    (let ((info (ptc-connection-info conn)))
      (should (equal (plist-get info :protocolVersion) ptc-protocol-version))
      (should (equal (plist-get (plist-get info :engine) :name) "ptc"))
      (should (numberp (plist-get (plist-get info :limits) :seconds))))
    (should (ptc-live-p conn)))
  (should-error (ptc-start "/nonexistent/ptc") :type 'ptc-error))

(ert-deftest ptc-test-parallel-async-out-of-order ()
  "A batch of async tools answering out of order from timers."
  (ptc-test--with-connection conn
    (let* ((in-flight 0) (most 0) (answered nil) (waiting nil) (batch 3)
           (answer (lambda (city callback)
                     (cl-decf in-flight)
                     (push city answered)
                     (funcall callback
                              (list :city city
                                    :temp (pcase city ("Oslo" 11) ("Rome" 24) (_ 19))))))
           (weather
            (list :name "Weather" :description "Gives the weather for a city."
                  :args-schema ptc-test--weather-schema :async t
                  :function
                  ;; Holds every call until the whole batch is in flight, then
                  ;; answers from timers: Rome first, Oslo last.
                  (lambda (args callback)
                    (setq most (max most (cl-incf in-flight)))
                    (push (cons (plist-get args :city) callback) waiting)
                    (when (= (length waiting) batch)
                      (dolist (held waiting)
                        (run-at-time (pcase (car held) ("Rome" 0) ("Lima" 0.05) (_ 0.1))
                                     nil answer (car held) (cdr held)))
                      (setq waiting nil)))))
           (outcome
            (ptc-run "(mapcar (lambda (r) (plist-get r :temp))
                        (parallel (Weather :city \"Oslo\") (Weather :city \"Rome\")
                                  (Weather :city \"Lima\")))"
                     (list weather) :connection conn :id "toolu_1" :tool-timeout 10)))
      (should (equal (plist-get outcome :outcome) "completed"))
      (should (equal (plist-get outcome :value) '(11 24 19)))
      (should (equal (plist-get outcome :text) "(11 24 19)"))
      (should (equal (nreverse answered) '("Rome" "Lima" "Oslo")))
      (should (= most 3))
      (should (equal (mapcar (lambda (c) (plist-get c :id)) (plist-get outcome :calls))
                     '("toolu_1/1" "toolu_1/2" "toolu_1/3")))
      (should (equal (mapcar (lambda (c) (plist-get c :batch)) (plist-get outcome :calls))
                     '(1 1 1)))
      (should (equal (ptc-test--statuses outcome) '("success" "success" "success")))
      ;; :parallelism passes through: one call in flight at a time.
      (setq most 0 answered nil batch 1)
      (let ((serial (ptc-run "(parallel (Weather :city \"Oslo\") (Weather :city \"Rome\"))"
                             (list weather) :connection conn :parallelism 1)))
        (should (equal (plist-get serial :outcome) "completed"))
        (should (= most 1))))))

(ert-deftest ptc-test-concurrent-runs-and-sync-tools ()
  "Two async runs at once on one connection; sync tools; notes; conversions."
  (ptc-test--with-connection conn
    (let* ((echo (list :name "Echo" :description "Returns its arguments."
                       :function (lambda (args) (ptc-result args "echoed"))))
           (text (list :name "Text" :description "Returns a string."
                       :function (lambda (_) "Ωmega ✓ \"quoted\"\nline")))
           (slow (list :name "Slow" :description "Answers after 0.2 s." :async t
                       :function (lambda (_ callback)
                                   (run-at-time 0.2 nil callback 42))))
           first second)
      (ptc-run-async "(Slow)" (list slow) (lambda (o) (setq first o)) :connection conn)
      (ptc-run-async "(list (Echo :a 1 :b (list \"x\" 2.5) :c :json-false :d :null
                                  :e (list :nested t))
                            (Text))"
                     (list echo text) (lambda (o) (setq second o)) :connection conn)
      (should (ptc-test--wait-until (lambda () (and first second))))
      (should (equal (plist-get first :value) 42))
      (should (equal (plist-get second :outcome) "completed"))
      (should (equal (plist-get second :notes) '("echoed")))
      (should (equal (plist-get second :text)
                     "((:a 1 :b (\"x\" 2.5) :c :json-false :d :null :e (:nested t)) \"Ωmega ✓ \\\"quoted\\\"\nline\")"))
      (should (equal (cadr (plist-get second :value)) "Ωmega ✓ \"quoted\"\nline")))))

(ert-deftest ptc-test-erroring-tool ()
  "Errors in tool functions become the guest's error values."
  (ptc-test--with-connection conn
    (let* ((station (list :name "Station" :description "Fails."
                          :function (lambda (_) (error "The station is down"))))
           (later (list :name "Later" :description "Fails from a timer." :async t
                        :function (lambda (_ callback)
                                    (run-at-time 0.05 nil callback
                                                 (ptc-tool-error "Timed out upstream")))))
           (bad (list :name "Bad" :description "Returns what JSON cannot carry."
                      :function (lambda (_) (current-buffer))))
           (outcome (ptc-run "(list (Station) (Later) (Bad) 1)" (list station later bad)
                             :connection conn)))
      (should (equal (plist-get outcome :outcome) "completed"))
      (should (equal (nth 0 (plist-get outcome :value)) '(:error "The station is down")))
      (should (equal (nth 1 (plist-get outcome :value)) '(:error "Timed out upstream")))
      (should (string-match-p "\\`Error: Bad failed: cannot encode the result"
                              (plist-get (nth 2 (plist-get outcome :value)) :error)))
      (should (equal (ptc-test--statuses outcome) '("error" "error" "error")))
      ;; A direct call that fails settles the run `tool-error'.
      (let ((direct (ptc-run "(Station)" (list station) :connection conn)))
        (should (equal (plist-get direct :outcome) "tool-error"))
        (should (equal (plist-get direct :text) "The station is down"))))))

(ert-deftest ptc-test-denial ()
  "A permission function's refusal and a tool's `ptc-deny' abort the script."
  (ptc-test--with-connection conn
    (let* ((deleted nil)
           (delete (list :name "Delete" :description "Deletes a file."
                         :args-schema '(:type "object" :properties (:path (:type "string")))
                         :function (lambda (args) (push (plist-get args :path) deleted) t)))
           (asked nil)
           (outcome (ptc-run "(progn (Delete :path \"notes.txt\") \"done\")" (list delete)
                             :connection conn
                             :permission (lambda (name args)
                                           (push (list name args) asked)
                                           "the session is read-only"))))
      (should (equal (plist-get outcome :outcome) "denied"))
      (should (equal (plist-get (plist-get outcome :error) :kind) "denied"))
      (should (string-match-p "the session is read-only"
                              (plist-get (plist-get outcome :error) :message)))
      (should (equal (ptc-test--statuses outcome) '("denied")))
      (should (equal asked '(("Delete" (:path "notes.txt")))))
      (should-not deleted)
      ;; Allowed by the permission function: the tool runs.
      (should (equal (plist-get (ptc-run "(Delete :path \"a\")" (list delete)
                                         :connection conn :permission #'always)
                                :outcome)
                     "completed"))
      (should (equal deleted '("a")))
      ;; The tool itself refuses.
      (let* ((guard (list :name "Guard" :description "Refuses."
                          :function (lambda (_) (ptc-deny "not today"))))
             (refused (ptc-run "(list (Guard) 1)" (list guard) :connection conn)))
        (should (equal (plist-get refused :outcome) "denied"))
        (should (string-match-p "not today" (plist-get refused :text)))))))

(defun ptc-test--hang-tool (log)
  "An async tool that never answers; its cancel function pushes onto LOG."
  (list :name "Hang" :description "Never answers." :async t
        :function (lambda (args _callback)
                    (lambda () (set log (cons (plist-get args :n) (symbol-value log)))))))

(defvar ptc-test--cancelled nil)

(ert-deftest ptc-test-quit-cancels-the-run ()
  "Quit (\\[keyboard-quit]) during `ptc-run' cancels the run on the engine."
  (ptc-test--with-connection conn
    (setq ptc-test--cancelled nil)
    (let ((timer (run-at-time 0.3 nil (lambda () (setq quit-flag t))))
          (quitted nil))
      (condition-case nil
          (ptc-run "(parallel (Hang :n 1) (Hang :n 2))"
                   (list (ptc-test--hang-tool 'ptc-test--cancelled)) :connection conn)
        (quit (setq quitted t)))
      (cancel-timer timer)
      (should quitted)
      ;; The engine cancelled both calls and answered the run.
      (should (ptc-test--wait-until
               (lambda () (and (= (length ptc-test--cancelled) 2)
                               (zerop (hash-table-count (ptc-connection-runs conn)))))))
      (should (equal (sort ptc-test--cancelled #'<) '(1 2)))
      ;; The connection still serves.
      (should (equal (plist-get (ptc-run "(+ 1 2)" nil :connection conn) :value) 3)))))

(ert-deftest ptc-test-ptc-cancel ()
  "`ptc-cancel' interrupts an async run; its callback gets the audit."
  (ptc-test--with-connection conn
    (setq ptc-test--cancelled nil)
    (let* (outcome
           (run (ptc-run-async "(progn (Hang :n 7) \"done\")"
                               (list (ptc-test--hang-tool 'ptc-test--cancelled))
                               (lambda (o) (setq outcome o)) :connection conn)))
      (run-at-time 0.2 nil #'ptc-cancel run)
      (should (ptc-test--wait-until (lambda () outcome)))
      (should (equal (plist-get outcome :outcome) "interrupted"))
      (should (equal (ptc-test--statuses outcome) '("cancelled")))
      (should (equal ptc-test--cancelled '(7))))))

(ert-deftest ptc-test-budgets-pass-through ()
  "Limits, the run's timeout and the tool timeout reach the engine."
  (ptc-test--with-connection conn
    (let ((steps (ptc-run "(while t)" nil :connection conn :limits '(:steps 1000))))
      (should (equal (plist-get (plist-get steps :error) :kind) "step")))
    (let ((alist (ptc-run "(while t)" nil :connection conn :limits '((steps . 1000)))))
      (should (equal (plist-get (plist-get alist :error) :kind) "step")))
    (let* ((start (float-time))
           (timed (ptc-run "(list (Hang :n 1) 1)"
                           (list (ptc-test--hang-tool 'ptc-test--cancelled))
                           :connection conn :tool-timeout 0.2)))
      (should (equal (plist-get timed :text)
                     "((:error \"Error: Hang timed out after 200 ms\") 1)"))
      (should (< (- (float-time) start) 5)))
    (let ((whole (ptc-run "(Hang :n 1)" (list (ptc-test--hang-tool 'ptc-test--cancelled))
                          :connection conn :timeout 0.3)))
      (should (equal (plist-get (plist-get whole :error) :kind) "time"))
      (should (equal (ptc-test--statuses whole) '("cancelled"))))
    (should-error (ptc-run "1" nil :connection conn :limits '(:no-such-budget 1))
                  :type 'ptc-error)))

(ert-deftest ptc-test-compile-error ()
  "A compile error comes back with its diagnostic, from check and from run."
  (ptc-test--with-connection conn
    (let* ((weather (list :name "Weather" :description "Gives the weather for a city."
                          :args-schema ptc-test--weather-schema
                          :function (lambda (_) (error "Not called"))))
           (check (ptc-check "(Wether :city \"Oslo\")" (list weather) :connection conn))
           (diagnostic (car (plist-get check :diagnostics))))
      (should-not (plist-get check :ok))
      (should (equal (plist-get diagnostic :code) "E0301"))
      (should (equal (plist-get diagnostic :span) '(:start 1 :end 7)))
      (should (string-match-p "try: Weather" (plist-get diagnostic :message)))
      (should (plist-get (ptc-check "(Weather :city \"Oslo\")" (list weather)
                                    :connection conn)
                         :ok))
      (let ((run (ptc-run "(Wether :city \"Oslo\")" (list weather) :connection conn)))
        (should (equal (plist-get (plist-get run :error) :kind) "preflight"))
        (should (string-match-p "try: Weather" (plist-get run :text)))
        (should-not (plist-get run :calls))))))

(ert-deftest ptc-test-large-results ()
  "Multi-megabyte outcomes arrive whole; an oversized tool result is an error."
  (ptc-test--with-connection conn
    (let* ((chunk (concat (make-string 399990 ?x) "éééé✓"))
           (big (list :name "Big" :description "Returns about 400 kB."
                      :function (lambda (_) chunk)))
           (outcome (ptc-run "(let ((b (Big))) (concat b b b b b))" (list big)
                             :connection conn :limits '(:value-bytes 16000000))))
      (should (equal (plist-get outcome :outcome) "completed"))
      (should (= (length (plist-get outcome :value)) (* 5 (length chunk))))
      (should (> (string-bytes (plist-get outcome :value)) 2000000))
      (should (equal (plist-get outcome :value) (apply #'concat (make-list 5 chunk)))))
    (let* ((huge (list :name "Huge" :description "Returns 2 MB."
                       :function (lambda (_) (make-string 2000000 ?y))))
           (start (float-time))
           (outcome (ptc-run "(list (Huge) 1)" (list huge) :connection conn)))
      (should (string-match-p "\\`((:error \"Error: Huge failed: the result has [0-9]+ bytes"
                              (plist-get outcome :text)))
      (should (< (- (float-time) start) 5)))))

(ert-deftest ptc-test-standalone-tool ()
  "A standalone tool runs as the whole expression and is refused inside one."
  (ptc-test--with-connection conn
    (let ((ask (list :name "Ask" :description "Asks the user." :standalone t
                     :args-schema '(:type "object" :properties (:question (:type "string")))
                     :function (lambda (args) (concat "yes to " (plist-get args :question))))))
      (should (equal (plist-get (ptc-run "(Ask :question \"ok?\")" (list ask)
                                         :connection conn)
                                :value)
                     "yes to ok?"))
      (let ((inside (ptc-run "(progn (Ask :question \"ok?\") 1)" (list ask)
                             :connection conn)))
        (should-not (equal (plist-get inside :outcome) "completed"))
        (should-not (plist-get inside :calls))
        (should (string-match-p "Standalone-only" (plist-get inside :text))))
      (should-not (plist-get (ptc-check "(progn (Ask :question \"ok?\") 1)" (list ask)
                                        :connection conn)
                             :ok)))))

(ert-deftest ptc-test-tool-definition ()
  "The ToolCall definition names the tools and encodes back to JSON."
  (ptc-test--with-connection conn
    (let* ((weather (list :name "Weather" :description "Gives the weather for a city."
                          :args-schema ptc-test--weather-schema))
           (definition (ptc-tool-definition (list weather) :connection conn))
           (schema (plist-get definition :input_schema)))
      (should (equal (plist-get definition :name) "ToolCall"))
      (should (string-match-p "(Weather :city STRING) — Gives the weather for a city\\."
                              (plist-get definition :description)))
      (should (equal (plist-get schema :required) ["expression"]))
      (should (equal (json-parse-string (json-encode definition) :object-type 'plist)
                     (json-parse-string (json-serialize definition
                                                        :false-object :json-false)
                                        :object-type 'plist)))
      (should (equal (json-serialize definition :false-object :json-false)
                     (json-serialize (json-parse-string (json-serialize definition
                                                                        :false-object
                                                                        :json-false))))))
    (should (equal (plist-get (ptc-describe nil :connection conn) :listing)
                   "No tools are available."))))

(ert-deftest ptc-test-refused-requests-and-exit ()
  "A refused request signals `ptc-error'; a dead engine fails its runs."
  (ptc-test--with-connection conn
    (should-error (ptc-run "1" (list (list :name "not a name!" :function #'ignore))
                           :connection conn)
                  :type 'ptc-error)
    (should-error (ptc-run "1" (list (list :name "NoFunction")) :connection conn)
                  :type 'ptc-error)
    ;; Over the engine's line limit: refused here, at once, not left waiting.
    (should-error (ptc-run (make-string (* 2 ptc-max-line-bytes) ?1) nil :connection conn)
                  :type 'ptc-error)
    (should (equal (plist-get (ptc-run "(+ 1 2)" nil :connection conn) :value) 3))
    ;; EOF on the engine's input: the active run still answers `interrupted'.
    (let (outcome)
      (ptc-run-async "(Hang :n 1)" (list (ptc-test--hang-tool 'ptc-test--cancelled))
                     (lambda (o) (setq outcome o)) :connection conn)
      (ptc-test--wait-until (lambda () (> (hash-table-count (ptc-connection-calls conn)) 0)))
      (ptc-stop conn)
      (should (ptc-test--wait-until (lambda () outcome)))
      (should (equal (plist-get outcome :outcome) "interrupted"))))
  ;; A killed engine: the waiting `ptc-run' signals instead of hanging.
  (ptc-test--with-connection conn
    (run-at-time 0.2 nil (lambda () (delete-process (ptc-connection-process conn))))
    (should-error (ptc-run "(Hang :n 1)" (list (ptc-test--hang-tool 'ptc-test--cancelled))
                           :connection conn)
                  :type 'ptc-error)))

(ert-deftest ptc-test-nested-sync-run ()
  "A tool may itself wait on another run: tools never run inside the filter."
  (ptc-test--with-connection conn
    (let* ((inner (list :name "Inner" :description "Doubles." :async t
                        :function (lambda (args callback)
                                    (run-at-time 0.05 nil callback
                                                 (* 2 (plist-get args :x))))))
           (outer (list :name "Outer" :description "Runs a script itself."
                        :function (lambda (args)
                                    (plist-get (ptc-run (format "(+ 1 (Inner :x %d))"
                                                                (plist-get args :x))
                                                        (list inner) :connection conn)
                                               :value))))
           (outcome (ptc-run "(parallel (Outer :x 1) (Outer :x 10))" (list outer)
                             :connection conn)))
      (should (equal (plist-get outcome :value) '(3 21))))))

(ert-deftest ptc-test-shared-connection ()
  "Without :connection, runs share `ptc-default-connection'."
  (unwind-protect
      (progn
        (should (equal (plist-get (ptc-run "(+ 1 2)" nil) :value) 3))
        (let ((shared ptc-default-connection))
          (should (ptc-live-p shared))
          (should (equal (plist-get (ptc-run "(* 6 7)" nil) :value) 42))
          (should (eq ptc-default-connection shared))))
    (when ptc-default-connection (ptc-stop ptc-default-connection))))

(provide 'ptc-test)

;;; ptc-test.el ends here
