;;; ptc.el --- Run ToolCall scripts in ptc, with tools in Emacs Lisp -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: tools, processes

;; This file is not part of GNU Emacs.

;;; Commentary:

;; ptc.el lets an Emacs agent package offer its model ToolCall: the model
;; writes one small Lisp expression that composes the package's tools
;; (sequential calls, `parallel' batches, result processing), the `ptc serve'
;; engine compiles and runs it in a bounded VM, and every nested tool call
;; comes back here to be answered by an Emacs Lisp function.
;;
;; Entry points:
;;
;;   (ptc-run EXPRESSION TOOLS &rest OPTIONS)          ; waits, returns the outcome
;;   (ptc-run-async EXPRESSION TOOLS CALLBACK &rest OPTIONS)
;;   (ptc-cancel RUN)                                  ; RUN from `ptc-run-async'
;;   (ptc-check EXPRESSION TOOLS &rest OPTIONS)        ; diagnostics only
;;   (ptc-describe TOOLS &rest OPTIONS)                ; description and listing
;;   (ptc-tool-definition TOOLS &rest OPTIONS)         ; the LLM tool definition
;;   (ptc-start) / (ptc-stop CONNECTION)               ; own connections
;;
;; A tool is a plist (:name :description :args-schema :function [:async]
;; [:standalone]).  The function receives the call's arguments as a plist
;; and returns the result; with `:async t' it receives (ARGS CALLBACK) and
;; answers by calling CALLBACK with the result, possibly later.  The outcome
;; is the object `ptc run --format json' prints, as a plist (:id :outcome
;; :text :value :error :direct :calls :notes :stats).  See emacs/README.md.
;;
;; The wire: `ptc serve' speaks JSON-RPC 2.0 over JSON lines, one JSON object
;; per line (spec/reference/protocol.md).  Emacs 28's jsonrpc.el (1.0.14)
;; frames messages with HTTP-style Content-Length headers in its process
;; filter and answers the server's requests synchronously from its
;; dispatcher, so it can neither read these frames nor let an asynchronous
;; tool answer later.  This file therefore uses `make-process' with its own
;; filter: output is appended to the connection's buffer, each complete line
;; is parsed with `json-parse-string' (scanning only the new text, so a
;; multi-megabyte line costs linear time), and frames are written with
;; `json-serialize'.  Tool functions and user callbacks run from timers,
;; never inside the process filter, so a tool may itself wait for processes
;; or call `ptc-run'.  The engine skips any line over 1 MiB from the host;
;; a result that large is answered as a host error instead of being sent,
;; so the guest sees an error value at once rather than a timeout.

;;; Code:

(require 'cl-lib)
(require 'subr-x)

(defgroup ptc nil
  "Run ToolCall scripts in the ptc engine with tools in Emacs Lisp."
  :group 'tools
  :prefix "ptc-")

(defcustom ptc-program "ptc"
  "The `ptc' binary; `ptc serve' is started from it."
  :type 'string)

(defcustom ptc-program-args nil
  "Extra arguments after `ptc serve', such as (\"--program-cache\" \"0\")."
  :type '(repeat string))

(defcustom ptc-timeout-grace 10
  "Seconds `ptc-run' waits beyond the run's `seconds' budget.
The engine itself settles a run that exceeds its budget; this grace
only bounds the wait for an engine that stopped answering."
  :type 'number)

(defcustom ptc-permission-function nil
  "Default permission decision for nested calls, or nil to allow all.
Called with the tool name and the arguments plist before the tool's
function; a string return value denies the call with that reason, nil
denies it, anything else allows it.  The `:permission' option of a run
overrides this."
  :type '(choice (const :tag "Allow every call" nil) function))

(defconst ptc-protocol-version "2026-12-01"
  "The `ptc serve' protocol version this client speaks.")

(defconst ptc-max-line-bytes 1048576
  "The longest line `ptc serve' accepts from the host, newline excluded.")

(defconst ptc--stderr-keep 65536
  "Characters of the engine's stderr kept for error messages.")

(define-error 'ptc-error "ptc error")

(defvar ptc-default-connection nil
  "The shared connection, started by the first run that needs it.")

(defvar-local ptc--scanned nil
  "Where the search for the next newline resumes in a connection buffer.")

(cl-defstruct (ptc-connection (:constructor ptc--make-connection)
                              (:copier nil))
  "One `ptc serve' process; many runs may be active on it at once."
  process stderr info (next-id 0)
  (requests (make-hash-table :test #'eql))
  (calls (make-hash-table :test #'equal))
  (runs (make-hash-table :test #'eql)))

(cl-defstruct (ptc--run (:constructor ptc--make-run) (:copier nil))
  connection id tools permission)

(cl-defstruct (ptc--call (:constructor ptc--make-call) (:copier nil))
  connection id done cancel)

(cl-defstruct (ptc--reply (:constructor ptc--make-reply) (:copier nil))
  kind text notes value)

;;;; Results a tool may return

(defun ptc-deny (reason)
  "Return a denial of the nested call with REASON, a string.
A tool's function (or its callback) returns this to refuse the call:
the script aborts and the run settles `denied'."
  (ptc--make-reply :kind 'denied :text reason))

(defun ptc-tool-error (message)
  "Return the tool's own failure with MESSAGE, a string.
The guest receives (:error MESSAGE); signalling an error in the tool's
function has the same effect."
  (ptc--make-reply :kind 'error :text message))

(defun ptc-result (value &rest notes)
  "Return VALUE as the tool's result, with NOTES (strings) for the audit.
Notes reach the outcome's `:notes' even when the script drops VALUE."
  (ptc--make-reply :kind 'result :value value :notes notes))

;;;; JSON

(defun ptc--plist-p (value)
  "Non-nil if VALUE is a non-empty plist with keyword keys."
  (and (consp value) (keywordp (car value))
       (proper-list-p value) (cl-evenp (length value))
       (cl-loop for key in value by #'cddr always (keywordp key))))

(defun ptc--key (key)
  "The JSON object key for KEY."
  (cond ((keywordp key) (substring (symbol-name key) 1))
        ((symbolp key) (symbol-name key))
        ((stringp key) key)
        (t (format "%s" key))))

(defun ptc--to-json (value)
  "VALUE as an object `json-serialize' accepts.
Plists with keyword keys and hash tables are objects, other lists and
vectors are arrays, nil is the empty array, t is true, :json-false and
:false are false, :null is null, other symbols are their names."
  (cond ((null value) [])
        ((eq value t) t)
        ((memq value '(:json-false :false)) :false)
        ((eq value :null) :null)
        ((or (stringp value) (numberp value)) value)
        ((symbolp value) (symbol-name value))
        ((hash-table-p value)
         (let ((object (make-hash-table :test #'equal)))
           (maphash (lambda (k v)
                      (let ((key (ptc--key k)))
                        (unless (gethash key object)
                          (puthash key (ptc--to-json v) object))))
                    value)
           object))
        ((ptc--plist-p value)
         (let ((object (make-hash-table :test #'equal)))
           (cl-loop for (k v) on value by #'cddr
                    for key = (ptc--key k)
                    unless (gethash key object)
                    do (puthash key (ptc--to-json v) object))
           object))
        ((vectorp value) (vconcat (mapcar #'ptc--to-json value)))
        ((proper-list-p value) (vconcat (mapcar #'ptc--to-json value)))
        (t (signal 'ptc-error (list "Cannot encode as JSON" value)))))

(defun ptc--encode (frame)
  "FRAME (a plist) as one line of JSON, without the newline."
  (json-serialize (ptc--to-json frame)))

(defun ptc--parse (text &optional array-type)
  "Parse the JSON TEXT: objects as plists, arrays as ARRAY-TYPE.
ARRAY-TYPE is `list' (the default) or `array'.  JSON null is nil and
false is :json-false."
  (json-parse-string text :object-type 'plist
                     :array-type (or array-type 'list)
                     :null-object nil :false-object :json-false))

;;;; The connection

(defun ptc-start (&optional program)
  "Start `ptc serve' from PROGRAM (default `ptc-program'); return the connection.
The connection is initialized when this returns.  Stop it with `ptc-stop'."
  (let* ((binary (or (executable-find (or program ptc-program))
                     (signal 'ptc-error
                             (list (format "Cannot find the ptc binary %s (see `ptc-program')"
                                           (or program ptc-program))))))
         (stderr (generate-new-buffer " *ptc-serve stderr*"))
         (stderr-process
          (make-pipe-process :name "ptc-serve-stderr" :buffer stderr
                             :noquery t :coding 'utf-8-unix
                             :filter #'ptc--stderr-filter))
         (process
          (condition-case err
              (make-process
               :name "ptc-serve"
               :buffer (generate-new-buffer " *ptc-serve*")
               :command (append (list binary "serve") ptc-program-args)
               :connection-type 'pipe :coding 'utf-8-unix :noquery t
               :stderr stderr-process
               :filter #'ptc--filter :sentinel #'ptc--sentinel)
            (error (delete-process stderr-process)
                   (kill-buffer stderr)
                   (signal 'ptc-error
                           (list (format "Cannot start %s serve: %s" binary
                                         (error-message-string err)))))))
         (connection (ptc--make-connection :process process :stderr stderr)))
    (process-put process 'ptc-connection connection)
    (with-current-buffer (process-buffer process)
      (set-buffer-multibyte t)
      (setq-local ptc--scanned (point-min)))
    (condition-case err
        (setf (ptc-connection-info connection)
              (ptc--request-sync connection "initialize"
                                 (list :protocolVersion ptc-protocol-version)
                                 30))
      (error (ptc-stop connection) (signal (car err) (cdr err))))
    connection))

(defun ptc-live-p (connection)
  "Non-nil if CONNECTION's engine is running."
  (and (ptc-connection-p connection)
       (process-live-p (ptc-connection-process connection))))

(defun ptc-connection ()
  "The shared connection, started (or restarted) when needed."
  (unless (ptc-live-p ptc-default-connection)
    (when ptc-default-connection
      (ptc-stop ptc-default-connection))
    (setq ptc-default-connection (ptc-start)))
  ptc-default-connection)

(defun ptc-stop (connection &optional timeout)
  "Stop CONNECTION: close the engine's input and wait TIMEOUT seconds for it.
The engine answers each active run with outcome `interrupted' and exits;
after TIMEOUT (default 5) seconds it is killed."
  (let ((process (ptc-connection-process connection))
        (deadline (+ (float-time) (or timeout 5))))
    (when (process-live-p process)
      (ignore-errors (process-send-eof process))
      (while (and (process-live-p process) (< (float-time) deadline))
        (accept-process-output process 0.05))
      (when (process-live-p process)
        (delete-process process)))
    ;; Let the sentinel settle what is left.
    (accept-process-output nil 0)
    (when (process-live-p process) (delete-process process))
    (when (buffer-live-p (process-buffer process))
      (kill-buffer (process-buffer process)))
    (let ((stderr (ptc-connection-stderr connection)))
      (when (buffer-live-p stderr)
        (let ((pipe (get-buffer-process stderr)))
          (when pipe (delete-process pipe)))
        (kill-buffer stderr)))
    (when (eq connection ptc-default-connection)
      (setq ptc-default-connection nil))
    nil))

(defun ptc--stderr-filter (process string)
  "Keep the last `ptc--stderr-keep' characters of STRING from PROCESS."
  (let ((buffer (process-buffer process)))
    (when (buffer-live-p buffer)
      (with-current-buffer buffer
        (goto-char (point-max))
        (insert string)
        (when (> (buffer-size) ptc--stderr-keep)
          (delete-region (point-min) (- (point-max) ptc--stderr-keep)))))))

(defun ptc--stderr-tail (connection)
  "The last lines CONNECTION's engine wrote to stderr, or the empty string."
  (let ((buffer (ptc-connection-stderr connection)))
    (if (buffer-live-p buffer)
        (with-current-buffer buffer
          (string-trim (buffer-substring-no-properties
                        (max (point-min) (- (point-max) 2000)) (point-max))))
      "")))

(defun ptc--filter (process string)
  "Append STRING from PROCESS and handle every complete line."
  (let ((buffer (process-buffer process))
        (connection (process-get process 'ptc-connection))
        lines)
    (when (buffer-live-p buffer)
      (with-current-buffer buffer
        (goto-char (point-max))
        (insert string)
        (goto-char (or ptc--scanned (point-min)))
        (while (search-forward "\n" nil t)
          (push (buffer-substring-no-properties (point-min) (1- (point)))
                lines)
          (delete-region (point-min) (point)))
        (setq ptc--scanned (point-max))))
    (dolist (line (nreverse lines))
      (ptc--handle connection line))))

(defun ptc--handle (connection line)
  "Handle one LINE from CONNECTION's engine."
  (let ((frame (condition-case err (ptc--parse line)
                 (error (message "ptc: unreadable frame from the engine: %s"
                                 (error-message-string err))
                        nil))))
    (when (and frame (listp frame))
      (let ((method (plist-get frame :method))
            (id (plist-get frame :id))
            (params (plist-get frame :params)))
        (cond
         ((equal method "tool/call")
          ;; Arguments keep JSON null as :null, the guest's own spelling.
          (ptc--tool-call connection id
                          (plist-get (json-parse-string
                                      line :object-type 'plist :array-type 'list
                                      :null-object :null :false-object :json-false)
                                     :params)))
         ((equal method "notifications/cancelled")
          (ptc--call-cancelled connection (plist-get params :requestId)))
         (method nil)
         ((integerp id)
          (let ((handler (gethash id (ptc-connection-requests connection))))
            (when handler
              (remhash id (ptc-connection-requests connection))
              (if (plist-member frame :error)
                  (let ((error (plist-get frame :error)))
                    (funcall handler nil
                             (format "%s (%s)" (plist-get error :message)
                                     (plist-get error :code))
                             line))
                (funcall handler (plist-get frame :result) nil line))))))))))

(defun ptc--sentinel (process _event)
  "Settle every request and call of PROCESS once it has exited."
  (unless (process-live-p process)
    (let* ((connection (process-get process 'ptc-connection))
           (message (format "ptc serve exited (%s %s)%s"
                            (process-status process) (process-exit-status process)
                            (let ((tail (ptc--stderr-tail connection)))
                              (if (string-empty-p tail) ""
                                (concat ": " tail)))))
           (handlers nil))
      (maphash (lambda (_ handler) (push handler handlers))
               (ptc-connection-requests connection))
      (clrhash (ptc-connection-requests connection))
      (clrhash (ptc-connection-runs connection))
      (maphash (lambda (_ call) (ptc--call-end call))
               (ptc-connection-calls connection))
      (clrhash (ptc-connection-calls connection))
      (dolist (handler handlers)
        (funcall handler nil message nil)))))

(defun ptc--send (connection frame)
  "Send FRAME (a plist) to CONNECTION's engine."
  (let ((process (ptc-connection-process connection))
        (line (ptc--encode frame)))
    (unless (process-live-p process)
      (let ((tail (ptc--stderr-tail connection)))
        (signal 'ptc-error
                (list (concat "The ptc serve process is not running"
                              (if (string-empty-p tail) "" (concat ": " tail)))))))
    ;; The engine would skip a longer line and answer it with id null, so
    ;; the request would wait for nothing.
    (when (> (string-bytes line) ptc-max-line-bytes)
      (signal 'ptc-error (list (format "The request has %d bytes of JSON; ptc serve accepts %d"
                                       (string-bytes line) ptc-max-line-bytes))))
    (process-send-string process (concat line "\n"))))

(defun ptc--request (connection method params handler)
  "Send METHOD with PARAMS on CONNECTION; return the request id.
HANDLER is called with (RESULT ERROR-MESSAGE LINE) when the answer
arrives, from the process filter: it must not wait."
  (let ((id (cl-incf (ptc-connection-next-id connection))))
    (puthash id handler (ptc-connection-requests connection))
    (condition-case err
        (ptc--send connection (list :jsonrpc "2.0" :id id :method method
                                    :params params))
      (error (remhash id (ptc-connection-requests connection))
             (signal (car err) (cdr err))))
    id))

(defun ptc--wait (connection id done deadline)
  "Wait until DONE (a function) is non-nil or DEADLINE (a time) passes.
Other processes, filters and timers keep running.  On `quit' the
request ID on CONNECTION is cancelled and `quit' is signalled again.
Return non-nil if DONE became true."
  (let ((process (ptc-connection-process connection)))
    (condition-case nil
        (progn
          (while (and (not (funcall done))
                      (or (null deadline) (< (float-time) deadline)))
            (accept-process-output
             (and (process-live-p process) process) 0.05))
          (funcall done))
      (quit (ignore-errors (ptc--cancel-request connection id))
            (signal 'quit nil)))))

(defun ptc--request-sync (connection method params timeout &optional array-type)
  "Send METHOD with PARAMS on CONNECTION and return its result.
Wait at most TIMEOUT seconds.  Parse the result with ARRAY-TYPE (see
`ptc--parse').  An error answer signals `ptc-error'."
  (let* (done result failure
         (id (ptc--request
              connection method params
              (lambda (value error line)
                (setq done t failure error
                      result (if (and array-type line (not error))
                                 (plist-get (ptc--parse line array-type) :result)
                               value))))))
    (unless (ptc--wait connection id (lambda () done)
                       (+ (float-time) timeout))
      (remhash id (ptc-connection-requests connection))
      (signal 'ptc-error (list (format "%s: no answer from ptc serve within %s s"
                                       method timeout))))
    (when failure (signal 'ptc-error (list failure)))
    result))

(defun ptc--cancel-request (connection id)
  "Ask CONNECTION's engine to interrupt the run of request ID."
  (when (process-live-p (ptc-connection-process connection))
    (ptc--send connection (list :jsonrpc "2.0" :method "notifications/cancelled"
                                :params (list :requestId id)))))

;;;; Tools and runs

(defun ptc--tool-object (tool)
  "The MCP Tool object (a plist) for TOOL, a ptc.el tool plist."
  (let ((name (plist-get tool :name)))
    (unless (stringp name)
      (signal 'ptc-error (list "A tool needs a string :name" tool)))
    (append (list :name name
                  :description (or (plist-get tool :description) "")
                  :inputSchema (or (plist-get tool :args-schema)
                                   '(:type "object")))
            (when (plist-get tool :annotations)
              (list :annotations (plist-get tool :annotations)))
            (when (plist-get tool :standalone)
              (list :standalone t)))))

(defun ptc--limits (options)
  "The `limits' object (a plist, or nil) of run OPTIONS."
  (let ((limits (plist-get options :limits))
        (result nil))
    (cond ((ptc--plist-p limits)
           (cl-loop for (k v) on limits by #'cddr
                    do (setq result (plist-put result (intern (concat ":" (ptc--key k)))
                                               v))))
          ((consp limits)
           (dolist (pair limits)
             (setq result (plist-put result (intern (concat ":" (ptc--key (car pair))))
                                     (cdr pair))))))
    (when (plist-member options :timeout)
      (setq result (plist-put result :seconds (plist-get options :timeout))))
    (when (plist-member options :tool-timeout)
      (let ((seconds (plist-get options :tool-timeout)))
        (setq result (plist-put result :tool-timeout-ms
                                (if (numberp seconds) (round (* 1000 seconds))
                                  seconds)))))
    (when (plist-member options :parallelism)
      (setq result (plist-put result :parallelism (plist-get options :parallelism))))
    result))

(defun ptc--params (expression tools options)
  "The params of a run or check of EXPRESSION with TOOLS and OPTIONS."
  (unless (stringp expression)
    (signal 'ptc-error (list "The expression must be a string" expression)))
  (let ((limits (ptc--limits options)))
    (append (list :expression expression
                  :tools (vconcat (mapcar #'ptc--tool-object tools)))
            (when limits (list :limits limits))
            (when (plist-get options :id) (list :id (plist-get options :id))))))

(defun ptc-run-async (expression tools callback &rest options)
  "Run EXPRESSION with TOOLS; call CALLBACK with the outcome plist.
Return the run, for `ptc-cancel'.  EXPRESSION is the script text; TOOLS
is a list of tool plists, each (:name NAME :description TEXT
:args-schema SCHEMA :function FN [:async t] [:standalone t]).

CALLBACK receives the outcome `ptc run --format json' prints, as a
plist: :id :outcome :text :value :error :direct :calls :notes :stats.
It runs from a timer.  If the engine refuses the request or exits,
:error-callback (an option) is called with the message instead, or
the message is shown.

OPTIONS are keyword arguments:
  :connection CONN     the connection (default: `ptc-connection')
  :limits PLIST        budgets, e.g. (:steps 100000 :value-bytes \"off\")
  :timeout SECONDS     the run's `seconds' budget (tool time included)
  :tool-timeout SECS   each nested call's timeout
  :parallelism N       calls in flight at once in a batch
  :id STRING           the envelope id (the host's tool-use id)
  :permission FN       see `ptc-permission-function'
  :error-callback FN   called with a message if the request fails"
  (let* ((connection (or (plist-get options :connection) (ptc-connection)))
         (error-callback (plist-get options :error-callback))
         (table (make-hash-table :test #'equal))
         (params (ptc--params expression tools options))
         (run (ptc--make-run :connection connection :tools table
                             :permission (if (plist-member options :permission)
                                             (plist-get options :permission)
                                           ptc-permission-function))))
    (dolist (tool tools)
      (unless (functionp (plist-get tool :function))
        (signal 'ptc-error (list (format "Tool %s has no :function"
                                         (plist-get tool :name)))))
      (puthash (plist-get tool :name) tool table))
    (setf (ptc--run-id run)
          (ptc--request
           connection "run" params
           (lambda (result error _line)
             (remhash (ptc--run-id run) (ptc-connection-runs connection))
             (if error
                 (run-at-time 0 nil (or error-callback
                                        (lambda (message)
                                          (message "ptc: %s" message)))
                              error)
               (run-at-time 0 nil callback result)))))
    (puthash (ptc--run-id run) run (ptc-connection-runs connection))
    run))

(defun ptc-cancel (run)
  "Interrupt RUN, a value of `ptc-run-async'.
The engine cancels its pending calls and settles it `interrupted'; its
callback still receives that outcome."
  (ptc--cancel-request (ptc--run-connection run) (ptc--run-id run)))

(defun ptc-run (expression tools &rest options)
  "Run EXPRESSION with TOOLS and return the outcome plist.
Wait for the outcome while other processes and timers run, so
asynchronous tools can answer.  TOOLS and OPTIONS are as in
`ptc-run-async' (without :error-callback); a refused request signals
`ptc-error'.  The wait is bounded by the run's `seconds' budget plus
`ptc-timeout-grace'.  \\[keyboard-quit] cancels the run on the engine
and quits."
  (let* ((connection (or (plist-get options :connection) (ptc-connection)))
         (budget (let ((limits (ptc--limits options)))
                   (if (plist-member limits :seconds)
                       (plist-get limits :seconds)
                     (plist-get (plist-get (ptc-connection-info connection) :limits)
                                :seconds))))
         (deadline (and (numberp budget)
                        (+ (float-time) budget ptc-timeout-grace)))
         done outcome failure
         (run (apply #'ptc-run-async expression tools
                     (lambda (result) (setq done t outcome result))
                     :connection connection
                     :error-callback (lambda (message) (setq done t failure message))
                     options)))
    (unless (ptc--wait connection (ptc--run-id run) (lambda () done) deadline)
      (ptc-cancel run)
      (signal 'ptc-error (list (format "No outcome from ptc serve within %s s"
                                       (+ budget ptc-timeout-grace)))))
    (when failure (signal 'ptc-error (list failure)))
    outcome))

(defun ptc-check (expression tools &rest options)
  "Compile EXPRESSION against TOOLS without running it.
Return (:ok BOOLEAN :diagnostics LIST), each diagnostic a plist (:kind
:code :message :span (:start :end) :suggestions).  OPTIONS are
:connection and :limits, as in `ptc-run-async'."
  (let* ((connection (or (plist-get options :connection) (ptc-connection)))
         (result (ptc--request-sync connection "check"
                                    (ptc--params expression tools options) 60)))
    (plist-put result :ok (eq (plist-get result :ok) t))))

(defun ptc-describe (tools &rest options)
  "What the model is told about ToolCall with TOOLS, as a plist.
Keys: :name (\"ToolCall\"), :description, :input_schema, :listing
\(the tool listing text) and :tools.  Arrays are vectors and JSON false
is :json-false, so the schema encodes back with `json-encode' or with
`json-serialize' given :false-object :json-false.  OPTIONS may give
:connection."
  (let ((connection (or (plist-get options :connection) (ptc-connection))))
    (ptc--request-sync connection "describe"
                       (list :tools (vconcat (mapcar #'ptc--tool-object tools)))
                       60 'array)))

(defun ptc-tool-definition (tools &rest options)
  "The ToolCall tool definition for an LLM request offering TOOLS.
Return (:name \"ToolCall\" :description TEXT :input_schema SCHEMA),
the description followed by the listing of TOOLS.  Rename
:input_schema to what the provider expects (OpenAI: parameters).
OPTIONS are as in `ptc-describe'."
  (let ((described (apply #'ptc-describe tools options)))
    (list :name (plist-get described :name)
          :description (concat (plist-get described :description) "\n\n"
                               (plist-get described :listing))
          :input_schema (plist-get described :input_schema))))

;;;; Nested calls

(defun ptc--tool-call (connection id params)
  "Start answering the engine's `tool/call' request ID on CONNECTION."
  (let ((call (ptc--make-call :connection connection :id id)))
    (puthash id call (ptc-connection-calls connection))
    (run-at-time 0 nil #'ptc--invoke call
                 (gethash (plist-get params :run) (ptc-connection-runs connection))
                 (plist-get params :name) (plist-get params :arguments))))

(defun ptc--call-end (call)
  "Mark CALL settled and run its cancel hook, if it had one."
  (unless (ptc--call-done call)
    (setf (ptc--call-done call) t)
    (let ((cancel (ptc--call-cancel call)))
      (cond ((timerp cancel) (cancel-timer cancel))
            ((functionp cancel)
             (condition-case err (funcall cancel)
               (error (message "ptc: a tool's cancel function failed: %s"
                               (error-message-string err)))))))))

(defun ptc--call-cancelled (connection id)
  "The engine no longer needs call ID on CONNECTION."
  (let ((call (gethash id (ptc-connection-calls connection))))
    (when call
      (remhash id (ptc-connection-calls connection))
      (ptc--call-end call))))

(defun ptc--permitted (run name arguments)
  "Return nil if RUN may call NAME with ARGUMENTS, else the denial reason."
  (let ((permission (ptc--run-permission run)))
    (when permission
      (let ((decision (condition-case err (funcall permission name arguments)
                        (error (format "the permission check failed: %s"
                                       (error-message-string err))))))
        (cond ((stringp decision) decision)
              ((null decision) "the user denied the call"))))))

(defun ptc--invoke (call run name arguments)
  "Answer CALL of tool NAME with ARGUMENTS in RUN."
  (let ((tool (and run (gethash name (ptc--run-tools run))))
        denial)
    (cond
     ((ptc--call-done call))
     ((null tool)
      (ptc--answer call (list :host-error (format "no Emacs function for %s" name))))
     ((setq denial (ptc--permitted run name arguments))
      (ptc--answer call (ptc-deny denial)))
     ((plist-get tool :async)
      (condition-case err
          (let ((cancel (funcall (plist-get tool :function) arguments
                                 (lambda (value) (ptc--answer call value)))))
            (when (and (or (timerp cancel) (functionp cancel))
                       (not (ptc--call-done call)))
              (setf (ptc--call-cancel call) cancel)))
        (error (ptc--answer call (ptc-tool-error (error-message-string err))))))
     (t
      (ptc--answer call
                   (condition-case err (funcall (plist-get tool :function) arguments)
                     (error (ptc-tool-error (error-message-string err)))))))))

(defun ptc--answer (call value)
  "Send VALUE as the answer to CALL, unless CALL is settled already."
  (unless (ptc--call-done call)
    (let* ((connection (ptc--call-connection call))
           (id (ptc--call-id call))
           (line (condition-case err (ptc--answer-line id value)
                   (error (ptc--answer-line
                           id (list :host-error
                                    (format "cannot encode the result: %s"
                                            (error-message-string err))))))))
      (when (> (string-bytes line) ptc-max-line-bytes)
        (setq line (ptc--answer-line
                    id (list :host-error
                             (format "the result has %d bytes of JSON; ptc serve accepts %d"
                                     (string-bytes line) ptc-max-line-bytes)))))
      (setf (ptc--call-done call) t)
      (remhash id (ptc-connection-calls connection))
      (when (process-live-p (ptc-connection-process connection))
        (process-send-string (ptc-connection-process connection)
                             (concat line "\n"))))))

(defun ptc--answer-line (id value)
  "The JSON line answering call ID with VALUE."
  (ptc--encode
   (append
    (list :jsonrpc "2.0" :id id)
    (cond
     ((and (consp value) (eq (car value) :host-error))
      (list :error (list :code -32000 :message (cadr value))))
     ((and (ptc--reply-p value) (eq (ptc--reply-kind value) 'denied))
      (list :result (list :denied (format "%s" (ptc--reply-text value)))))
     ((and (ptc--reply-p value) (eq (ptc--reply-kind value) 'error))
      (list :result (list :isError t
                          :content (list (list :type "text"
                                               :text (format "%s" (ptc--reply-text value)))))))
     ((ptc--reply-p value)
      (list :result (append (ptc--result-object (ptc--reply-value value))
                            (when (ptc--reply-notes value)
                              (list :notes (mapcar (lambda (n) (format "%s" n))
                                                   (ptc--reply-notes value)))))))
     (t (list :result (ptc--result-object value)))))))

(defun ptc--result-object (value)
  "The CallToolResult plist carrying VALUE to the guest as it is."
  ;; Always `structuredContent', so a result that looks like a
  ;; CallToolResult or a denial reaches the guest as data.
  (if (stringp value)
      (list :content (list (list :type "text" :text value)))
    (list :structuredContent value)))

(provide 'ptc)

;;; ptc.el ends here
