//! Suggestions for unknown operator names (dialect §10): a curated answer for the Emacs
//! functions the dialect leaves out on purpose, else a nearest-match name when it is
//! close enough to help.
//!
//! Order of answers for one unknown name:
//!
//! 1. **Curated** ([`CURATED`], one literal): common Emacs Lisp whose job the dialect does
//!    another way (`loop` → `cl-loop`, `cl-defstruct` → plists, `macrolet` → `defmacro`,
//!    list mutation → rebuilding or hash tables, buffers and files → tool calls). Shown
//!    instead of any edit-distance match.
//! 2. **Nearest match** among the candidates, offered in a fixed order (special forms,
//!    transformers including the backquote, primitives, roster tools, script functions,
//!    script macros); the first candidate with the strictly smallest distance wins, and
//!    only when it is *similar*: one substitution, insertion or deletion in a name of at
//!    least 3 characters, one edit of any kind (transpositions included) in 4, two edits in
//!    6 (so no "aref (try: Grep)", "elt (try: let)"). The distance is 1 when the unknown name
//!    is the candidate with a namespace prefix or suffix stripped (`seq-take` → `take`,
//!    `cl-mapcar` → `mapcar`), and the optimal-string-alignment distance (Levenshtein plus
//!    adjacent transpositions) over characters otherwise.
//!
//! Bounds (the suggestions of one diagnostic cost little whatever the script):
//!
//! - a name longer than [`MAX_COMPARED_CHARS`] characters is never compared; a candidate
//!   whose length differs from the name's by [`MAX_DISTANCE`] or more is skipped without
//!   computing a distance;
//! - one message spends at most [`MAX_SUGGEST_CELLS`] Levenshtein cells in all; names left
//!   when it is spent are listed without a suggestion;
//! - one message lists at most [`MAX_LISTED_NAMES`] names (then "and N more"), each cut to
//!   [`MAX_COMPARED_CHARS`] characters.

/// Distances at or above this are never suggested.
pub const MAX_DISTANCE: usize = 3;

/// Longest name (in characters) compared by edit distance, and longest name printed.
pub const MAX_COMPARED_CHARS: usize = 64;

/// Levenshtein cells one unknown-functions message may spend on suggestions.
pub const MAX_SUGGEST_CELLS: usize = 1 << 20;

/// Most unknown names one message lists.
pub const MAX_LISTED_NAMES: usize = 20;

/// Emacs Lisp the dialect leaves out on purpose, and what to use instead. Every name here
/// is absent from the dialect's callable tables (a unit test keeps it so).
pub const CURATED: &[(&str, &str)] = &[
    ("loop", "use cl-loop"),
    ("cl-do", "use cl-loop, dolist, dotimes or while"),
    ("pcase-let-alist", "use let-alist or pcase-let"),
    ("macrolet", "use a top-level defmacro"),
    ("cl-macrolet", "use a top-level defmacro"),
    (
        "cl-symbol-macrolet",
        "use a variable or a top-level defmacro",
    ),
    ("cl-defstruct", "use a plist such as (list :name n :size s)"),
    (
        "cl-defmethod",
        "use defun with cond or cl-typecase on the argument",
    ),
    (
        "cl-defgeneric",
        "use defun with cond or cl-typecase on the argument",
    ),
    ("cl-do-symbols", "there is no obarray; use a list"),
    (
        "setcar",
        "conses are immutable (deviation 104); only a cell from (assoc K L)/(assq K L) of an alist in a variable L can be set (deviation 150); else use (setf (alist-get K L) V), rebuild the list, or keep mutable state in a hash table (puthash)",
    ),
    (
        "setcdr",
        "conses are immutable (deviation 104); only a cell from (assoc K L)/(assq K L) of an alist in a variable L can be set (deviation 150); else use (setf (alist-get K L) V), rebuild the list, or keep mutable state in a hash table (puthash)",
    ),
    (
        "aset",
        "vectors are immutable (deviation 104); use a hash table with integer keys (puthash I V TABLE)",
    ),
    (
        "nconc",
        "lists are immutable (deviation 104); use (setq xs (append xs ys))",
    ),
    ("defcustom", "there are no globals; bind with let"),
    ("setq-default", "there are no globals; bind with let"),
    ("setq-local", "there are no globals; bind with let"),
    ("cl-defun", "use defun with &optional/&rest"),
    ("add-to-list", "use cl-pushnew on the variable"),
    ("defvar", "there are no globals; bind with let"),
    ("defconst", "there are no globals; bind with let"),
    (
        "with-temp-buffer",
        "there are no buffers; work on strings (split-string, string-search, concat)",
    ),
    (
        "with-current-buffer",
        "there are no buffers; call a tool (Read, Grep) and work on its text",
    ),
    ("find-file", "there are no buffers; use the Read tool"),
    (
        "find-file-noselect",
        "there are no buffers; use the Read tool",
    ),
    ("insert-file-contents", "use the Read tool"),
    (
        "buffer-string",
        "there are no buffers; use the text a tool returned",
    ),
    (
        "buffer-substring",
        "there are no buffers; use substring on a string",
    ),
    (
        "current-buffer",
        "there are no buffers; call a tool and work on its text",
    ),
    (
        "goto-char",
        "there are no buffers; use string-search or string-match-p on a string",
    ),
    (
        "point",
        "there are no buffers; use string-search on a string",
    ),
    (
        "re-search-forward",
        "there are no buffers; use string-match-p on a string, or the Grep tool",
    ),
    (
        "search-forward",
        "there are no buffers; use string-search on a string",
    ),
    (
        "looking-at",
        "there are no buffers; use string-match-p with a \\` anchor",
    ),
    (
        "forward-line",
        "there are no buffers; split-string the text on \"\\n\"",
    ),
    (
        "insert",
        "there are no buffers; build strings with concat or format",
    ),
    ("directory-files", "use the Glob tool"),
    (
        "directory-files-recursively",
        "use the Glob tool with a **/ pattern",
    ),
    ("file-expand-wildcards", "use the Glob tool"),
    (
        "file-exists-p",
        "use the Glob tool, or Read and check for (:error ...)",
    ),
    ("shell-command", "there are no processes; call a tool"),
    (
        "shell-command-to-string",
        "there are no processes; call a tool",
    ),
    ("call-process", "there are no processes; call a tool"),
    ("process-lines", "there are no processes; call a tool"),
    (
        "print",
        "the script's final value is its result; return the value",
    ),
    (
        "princ",
        "the script's final value is its result; return the value",
    ),
    (
        "eval",
        "there is no eval; write the form itself, or define a macro",
    ),
    ("require", "nothing to load; every callable is built in"),
    // Frequent in the Emacs Lisp census (spec/reference/census.md) whose nearest match
    // misleads (`point-min` → `min`, `boundp` → `round`, `->` → `>`, `oref` → `aref`).
    (
        "point-min",
        "there are no buffers; a string's first index is 0",
    ),
    (
        "point-max",
        "there are no buffers; a string's end is (length s)",
    ),
    (
        "delete-region",
        "there are no buffers; build the string without the part (concat (substring s 0 a) (substring s b))",
    ),
    (
        "buffer-substring-no-properties",
        "there are no buffers; use substring on a string",
    ),
    (
        "interactive",
        "a script is not a command; drop the (interactive) form",
    ),
    (
        "declare-function",
        "nothing to declare; every callable is built in",
    ),
    (
        "boundp",
        "there are no globals; a variable exists when the script binds it",
    ),
    (
        "symbol-value",
        "there are no globals; use the variable itself",
    ),
    ("set", "use setq on the variable"),
    (
        "get",
        "symbols have no property lists; use a plist (plist-get) or a hash table (gethash)",
    ),
    (
        "put",
        "symbols have no property lists; use a plist (plist-put) or a hash table (puthash)",
    ),
    (
        "add-hook",
        "there are no hooks; call the function where it is needed",
    ),
    (
        "remove-hook",
        "there are no hooks; call the function where it is needed",
    ),
    (
        "advice-add",
        "there is no advice; define a wrapping defun and call it",
    ),
    (
        "float-time",
        "there is no clock; ask a tool for the time if one is offered",
    ),
    (
        "current-time",
        "there is no clock; ask a tool for the time if one is offered",
    ),
    (
        "format-time-string",
        "there is no clock; ask a tool for the time if one is offered",
    ),
    (
        "time-subtract",
        "there is no clock; subtract numbers of seconds with -",
    ),
    (
        "encode-coding-string",
        "strings are Unicode text; use the string as it is",
    ),
    (
        "decode-coding-string",
        "strings are Unicode text; use the string as it is",
    ),
    (
        "assert",
        "use (unless COND (error \"Assertion failed: %S\" VALUE))",
    ),
    (
        "define-error",
        "signal with (error \"...\") and catch it with condition-case",
    ),
    (
        "oref",
        "there are no classes; use a plist and (plist-get OBJ :slot)",
    ),
    (
        "oset",
        "there are no classes; use a plist and (setf (plist-get OBJ :slot) V)",
    ),
    (
        "slot-value",
        "there are no classes; use a plist and (plist-get OBJ :slot)",
    ),
    (
        "defclass",
        "there are no classes; use a plist such as (list :name n :size s)",
    ),
    (
        "make-instance",
        "there are no classes; use a plist such as (list :name n :size s)",
    ),
    ("->", "dash.el is not built in; use thread-first"),
    ("->>", "dash.el is not built in; use thread-last"),
    ("-let", "dash.el is not built in; use pcase-let or seq-let"),
    ("-let*", "dash.el is not built in; use pcase-let*"),
    ("-lambda", "dash.el is not built in; use pcase-lambda"),
    ("-map", "dash.el is not built in; use mapcar"),
    ("--map", "dash.el is not built in; use mapcar with a lambda"),
    ("-filter", "dash.el is not built in; use seq-filter"),
    (
        "--filter",
        "dash.el is not built in; use seq-filter with a lambda",
    ),
    ("-first", "dash.el is not built in; use seq-find"),
    (
        "--first",
        "dash.el is not built in; use seq-find with a lambda",
    ),
    ("--each", "dash.el is not built in; use dolist"),
    ("-when-let", "dash.el is not built in; use when-let*"),
];

/// The curated advice for `name`, if any.
#[must_use]
pub fn curated(name: &str) -> Option<&'static str> {
    CURATED
        .iter()
        .find(|(absent, _)| *absent == name)
        .map(|(_, advice)| *advice)
}

/// The suggestion for `name` among `candidates` (in priority order), if any is close
/// and similar enough. No curated lookup; no global work bound.
#[must_use]
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut cells = usize::MAX;
    nearest(name, candidates, &mut cells)
}

/// [`suggest`] spending at most `cells` Levenshtein cells (decremented).
fn nearest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    cells: &mut usize,
) -> Option<&'a str> {
    let name_chars = name.chars().count();
    if name_chars > MAX_COMPARED_CHARS {
        return None;
    }
    let mut best: Option<(&'a str, usize)> = None;
    for candidate in candidates {
        let candidate_chars = candidate.chars().count();
        let namespaced = is_namespaced(name, candidate);
        let (distance, levenshtein) = if namespaced {
            (1, 1)
        } else if name_chars.abs_diff(candidate_chars) >= MAX_DISTANCE {
            continue;
        } else {
            let cost = name_chars
                .saturating_mul(candidate_chars)
                .saturating_mul(2)
                .max(1);
            if *cells < cost {
                break;
            }
            *cells -= cost;
            (
                bounded_distance(name, candidate, true),
                bounded_distance(name, candidate, false),
            )
        };
        let longest = name_chars.max(candidate_chars);
        // A one-edit typo of a 3-character name must be a substitution, insertion or
        // deletion (`bar` → `car`); a transposition needs 4 characters (`Raed` → `Read`,
        // but not `elt` → `let`).
        let similar = namespaced
            || (levenshtein <= 1 && longest >= 3)
            || (distance <= 1 && longest >= 4)
            || (distance <= 2 && longest >= 6);
        if similar && best.is_none_or(|(_, d)| distance < d) {
            best = Some((candidate, distance));
        }
    }
    best.map(|(candidate, _)| candidate)
}

/// `name` cut to [`MAX_COMPARED_CHARS`] characters for printing.
fn shown(name: &str) -> String {
    match name.char_indices().nth(MAX_COMPARED_CHARS) {
        Some((byte, _)) => format!("{}...", name.get(..byte).unwrap_or_default()),
        None => name.to_owned(),
    }
}

/// The list part of the unknown-functions message: each name with its curated advice or
/// suggestion, bounded as the module docs say.
#[must_use]
pub fn describe_unknown(names: &[&str], candidates: &[&str]) -> String {
    let mut cells = MAX_SUGGEST_CELLS;
    let mut parts: Vec<String> = names
        .iter()
        .take(MAX_LISTED_NAMES)
        .map(|name| {
            let shown = shown(name);
            if let Some(advice) = curated(name) {
                return format!("{shown} (not in this dialect: {advice})");
            }
            match nearest(name, candidates.iter().copied(), &mut cells) {
                Some(suggestion) => format!("{shown} (try: {suggestion})"),
                None => shown,
            }
        })
        .collect();
    if names.len() > MAX_LISTED_NAMES {
        parts.push(format!("and {} more", names.len() - MAX_LISTED_NAMES));
    }
    parts.join(", ")
}

/// The suggestion distance of `name` from `candidate`: 1 for a namespace-stripped match,
/// else the optimal-string-alignment distance (Levenshtein plus adjacent transpositions;
/// values at or above [`MAX_DISTANCE`] are reported as [`MAX_DISTANCE`]).
#[must_use]
pub fn distance(name: &str, candidate: &str) -> usize {
    if is_namespaced(name, candidate) {
        return 1;
    }
    bounded_distance(name, candidate, true)
}

fn is_namespaced(name: &str, candidate: &str) -> bool {
    let suffix = name
        .strip_suffix(candidate)
        .is_some_and(|rest| rest.ends_with('-'));
    let prefix = name
        .strip_prefix(candidate)
        .is_some_and(|rest| rest.starts_with('-'));
    suffix || prefix
}

/// Edit distance over characters (with adjacent transpositions when `transpose`), capped
/// at [`MAX_DISTANCE`].
fn bounded_distance(left: &str, right: &str, transpose: bool) -> usize {
    if left.chars().count().abs_diff(right.chars().count()) >= MAX_DISTANCE {
        return MAX_DISTANCE;
    }
    let left: Vec<char> = left.chars().collect();
    let right: Vec<char> = right.chars().collect();
    let width = right.len() + 1;
    // Three rows: two back (for transpositions), previous, current.
    let mut before: Vec<usize> = vec![0; width];
    let mut previous: Vec<usize> = (0..width).collect();
    let mut current = vec![0; width];
    for (i, lc) in left.iter().enumerate() {
        current.fill(0);
        if let Some(first) = current.first_mut() {
            *first = i + 1;
        }
        for (j, rc) in right.iter().enumerate() {
            let substitute = previous.get(j).copied().unwrap_or(0) + usize::from(lc != rc);
            let delete = previous.get(j + 1).copied().unwrap_or(0) + 1;
            let insert = current.get(j).copied().unwrap_or(0) + 1;
            let mut best = substitute.min(delete).min(insert);
            let swapped = i > 0
                && j > 0
                && left.get(i - 1) == Some(rc)
                && right.get(j - 1) == Some(lc)
                && lc != rc;
            if transpose && swapped {
                best = best.min(before.get(j - 1).copied().unwrap_or(0) + 1);
            }
            if let Some(cell) = current.get_mut(j + 1) {
                *cell = best;
            }
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous.last().copied().unwrap_or(0).min(MAX_DISTANCE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::{SPECIAL_FORMS, TRANSFORMERS, is_definition_form};
    use ptc_vm::prims::PRIMITIVES;

    #[test]
    fn namespace_stripping_is_distance_one() {
        assert_eq!(distance("seq-take", "take"), 1);
        assert_eq!(distance("cl-mapcar", "mapcar"), 1);
        assert_eq!(distance("take-while", "take"), 1);
        assert_eq!(distance("seqtake", "take"), 3);
    }

    #[test]
    fn levenshtein_counts_characters() {
        assert_eq!(distance("lenght", "length"), 1);
        assert_eq!(bounded_distance("lenght", "length", false), 2);
        assert_eq!(distance("Raed", "Read"), 1);
        assert_eq!(distance("car", "car"), 0);
        assert_eq!(distance("cdr", "car"), 1);
        assert_eq!(distance("é", "e"), 1);
        assert_eq!(distance("abcdefgh", "a"), 3);
    }

    #[test]
    fn first_strictly_smallest_wins() {
        assert_eq!(suggest("cax", ["car", "cdr", "cax2"]), Some("car"));
        assert_eq!(suggest("cdx", ["car", "cdr"]), Some("cdr"));
        assert_eq!(suggest("zzzzzz", ["car", "cdr"]), None);
    }

    #[test]
    fn only_similar_names_are_suggested() {
        assert_eq!(suggest("aref", ["Grep"]), None);
        assert_eq!(suggest("elt", ["let"]), None);
        assert_eq!(suggest("lenght", ["length"]), Some("length"));
        assert_eq!(suggest("grep", ["Grep"]), Some("Grep"));
        assert_eq!(suggest("xy", ["x"]), None);
        assert_eq!(suggest("bar", ["car"]), Some("car"));
        assert_eq!(suggest("Raed", ["and", "Read"]), Some("Read"));
        assert_eq!(suggest("whne", ["while", "when"]), Some("when"));
        assert_eq!(suggest("1+", ["+"]), None);
    }

    #[test]
    fn curated_advice_replaces_edit_distance() {
        let listed = describe_unknown(&["loop", "cl-defstruct", "lenght"], &["upcase", "length"]);
        assert_eq!(
            listed,
            "loop (not in this dialect: use cl-loop), cl-defstruct (not in this dialect: use a \
             plist such as (list :name n :size s)), lenght (try: length)"
        );
    }

    #[test]
    fn the_curated_table_names_only_absent_callables() {
        for (name, _) in CURATED {
            assert!(
                !SPECIAL_FORMS.contains(name)
                    && !TRANSFORMERS.contains(name)
                    && !is_definition_form(name)
                    && !PRIMITIVES.iter().any(|p| p.name == *name),
                "{name} is a callable of the dialect now: drop it from CURATED"
            );
        }
        let mut names: Vec<&str> = CURATED.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CURATED.len(), "duplicate curated names");
    }

    #[test]
    fn suggestions_are_bounded() {
        let long: Vec<String> = (0..1000).map(|i| format!("{i:0>256}")).collect();
        let names: Vec<&str> = long.iter().map(String::as_str).collect();
        let candidates: Vec<String> = (0..60).map(|i| format!("{i:x>256}")).collect();
        let candidates: Vec<&str> = candidates.iter().map(String::as_str).collect();
        let listed = describe_unknown(&names, &candidates);
        assert!(listed.len() < 2 * MAX_LISTED_NAMES * (MAX_COMPARED_CHARS + 8));
        assert!(listed.ends_with("and 980 more"));
        // Many short names against many candidates stop at the cell budget.
        let short: Vec<String> = (0..5000).map(|i| format!("name{i:0>40}")).collect();
        let mut cells = 10_000;
        let cands: Vec<&str> = short.iter().map(String::as_str).collect();
        let _ = nearest(
            "name0000000000000000000000000000000000000x",
            cands.iter().copied(),
            &mut cells,
        );
        // Stopped once less than one comparison (2 × 44 × 44 cells) was left.
        assert!(cells < 2 * 44 * 44);
    }
}
