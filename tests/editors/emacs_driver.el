;;; emacs_driver.el --- drive Emacs and Eglot through one editing session with the lobster language server  -*- lexical-binding: t -*-
;; Loaded after the documented init.el, in `emacs --batch'.  Every step waits on the editor's state
;; (`lobster-test-wait' polls a condition while Emacs reads the server's messages; the deadline is a
;; failsafe), and what the editor showed is written as JSON to $LOBSTER_EDITOR_REPORT.
(require 'cl-lib)
(require 'json)
(require 'subr-x)

(defvar lobster-test-report nil "What the session saw, as an alist.")
(defvar lobster-test-deadline
  (/ (string-to-number (or (getenv "LOBSTER_EDITOR_DEADLINE_MS") "60000")) 1000.0))

(defun lobster-test-note (key value)
  (setq lobster-test-report (append lobster-test-report (list (cons key value)))))

(defun lobster-test-idle ()
  "What Emacs does while the user pauses: run the idle timers (Eglot sends changes from one).
Batch Emacs never waits for input, so it never goes idle by itself."
  (dolist (timer (copy-sequence timer-idle-list))
    (timer-event-handler timer)))

(defun lobster-test-wait (what predicate)
  "Let Emacs read the server's messages, idle, until PREDICATE holds."
  (let ((until (+ (float-time) lobster-test-deadline)))
    (while (not (funcall predicate))
      (when (> (float-time) until)
        (error "timed out waiting for %s" what))
      (accept-process-output nil 0.02)
      (lobster-test-idle))))

(defun lobster-test-codes ()
  "The codes of the buffer's Flymake diagnostics (Eglot writes them as `lobster [CODE]: message')."
  (sort (delete-dups
         (cl-loop for d in (flymake-diagnostics)
                  for text = (flymake-diagnostic-text d)
                  when (string-match "\\[\\([A-Z][0-9]+\\)\\]" text)
                  collect (match-string 1 text)))
        #'string<))

(defun lobster-test-has (code) (member code (lobster-test-codes)))

(defun lobster-test-goto (needle &optional shift)
  (goto-char (point-min))
  (search-forward needle)
  (goto-char (+ (match-beginning 0) (or shift 0))))

(defun lobster-test-text () (buffer-substring-no-properties (point-min) (point-max)))

(defun lobster-test-session ()
  (find-file "workflow.lobster")
  (lobster-test-note 'mode (symbol-name major-mode))
  (lobster-test-note 'emacs emacs-version)
  (run-hooks 'post-command-hook)       ; as after any command: `eglot-ensure' connects then
  (lobster-test-wait "Eglot to manage the buffer" (lambda () (bound-and-true-p eglot--managed-mode)))
  (lobster-test-note 'eglot (package-version-join (package-desc-version (cadr (assq 'eglot package-alist)))))
  (font-lock-ensure)
  (lobster-test-goto "steps:")
  (lobster-test-note 'steps_face (format "%s" (get-text-property (point) 'face)))

  ;; open: shellcheck runs (the file is saved)
  (lobster-test-wait "diagnostics on open (L310, L201)" (lambda () (and (lobster-test-has "L310") (lobster-test-has "L201"))))
  (lobster-test-note 'opened (lobster-test-codes))

  ;; edit: a typo'd ${arg}; unsaved text is not shellchecked
  (lobster-test-goto "    run: echo")
  (forward-line 1)
  (insert "    env: {WHO: \"${nme}\"}\n")
  (lobster-test-wait "diagnostics after the edit (L105, no L310)" (lambda () (and (lobster-test-has "L105") (not (lobster-test-has "L310")))))
  (lobster-test-note 'edited (lobster-test-codes))

  ;; save: shellcheck's finding returns
  (save-buffer)
  (lobster-test-wait "the shellcheck finding after the save" (lambda () (and (lobster-test-has "L310") (lobster-test-has "L105"))))
  (lobster-test-note 'saved (lobster-test-codes))

  ;; hover on a pipeline command, as Eglot renders it
  (lobster-test-goto "exec --json" 1)
  (let ((hover (jsonrpc-request (eglot--current-server-or-lose) :textDocument/hover (eglot--TextDocumentPositionParams))))
    (lobster-test-note 'hover (substring-no-properties (eglot--hover-info (plist-get hover :contents)))))

  ;; go to definition: from $count.json to the step id
  (lobster-test-goto "$count.json" 2)
  (call-interactively #'xref-find-definitions)
  (lobster-test-note 'definition (list (line-number-at-pos) (current-column)))

  ;; completion after `$' in stdin:
  (lobster-test-goto "$count.json" 1)
  (let ((capf (eglot-completion-at-point)))
    (lobster-test-note 'completion (all-completions "" (nth 2 capf))))

  ;; the quick fix of "did you mean `pick'?", chosen from Eglot's menu
  (lobster-test-goto "pikc" 1)
  (let ((wanted "Change `pikc` to `pick`")
        (last-nonmenu-event ?a))        ; a keyboard user: Eglot asks with `completing-read'
    (cl-letf (((symbol-function 'completing-read)
               (lambda (_prompt collection &rest _)
                 (or (cl-find wanted (all-completions "" collection) :test #'equal)
                     (error "no code action %S among %S" wanted (all-completions "" collection))))))
      (call-interactively #'eglot-code-actions)))
  (lobster-test-wait "the quick fix to apply" (lambda () (string-match-p "| pick a" (lobster-test-text))))
  (lobster-test-note 'code_action (lobster-test-text))

  ;; rename: refused to a taken name (the buffer stays), then done
  (lobster-test-goto "id: count" 4)
  (let ((before (lobster-test-text)))
    (condition-case failure
        (progn (eglot-rename "greet") (lobster-test-note 'refused_rename "accepted"))
      (error (lobster-test-note 'refused_rename
                                (list (cons 'unchanged (equal before (lobster-test-text)))
                                      (cons 'message (error-message-string failure)))))))
  (eglot-rename "tally")
  (lobster-test-note 'rename (lobster-test-text))

  ;; format the document
  (eglot-format-buffer)
  (lobster-test-note 'formatted (lobster-test-text))
  (lobster-test-note 'stderr_buffer
                     (with-current-buffer (jsonrpc-stderr-buffer (eglot--current-server-or-lose))
                       (buffer-substring-no-properties (point-min) (point-max)))))

(condition-case failure
    (lobster-test-session)
  (error (lobster-test-note 'error (error-message-string failure))))
(with-temp-file (getenv "LOBSTER_EDITOR_REPORT")
  (insert (json-encode lobster-test-report)))
(kill-emacs 0)
