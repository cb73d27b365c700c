//! Direct-call classification (§11.2) with the notes' canonical examples.

mod static_support;

use ptc_compiler::internals::direct::{self, DirectCall};
use ptc_compiler::roster::Roster;
use ptc_vm::Interner;
use static_support::read;

fn roster() -> Roster {
    Roster::new().tool("Probe").tool("Other").standalone("Ask")
}

fn classify(src: &str) -> Option<DirectCall> {
    let mut interner = Interner::new();
    let forms = read(src, &mut interner);
    direct::classify(&forms, &roster(), &interner)
}

#[test]
fn direct_scripts() {
    for src in [
        "(Probe :value 1)",
        "(Probe :value '(Other))",
        "(Probe :value (concat \"a\" \"b\"))",
        "(Probe)",
        "(Probe :value (list 1 (car '(2)) [x (Other)]))",
        "(Ask :question \"why?\")",
    ] {
        assert!(classify(src).is_some(), "{src} should be direct");
    }
    let call = classify("  (Probe :value 1)").unwrap();
    assert_eq!(call.tool, "Probe");
    assert_eq!((call.span.start, call.span.end), (2, 18));
}

#[test]
fn composed_scripts() {
    for src in [
        "(progn (Probe :value 1))",
        "(Probe :value (Other))",
        "(Probe :value (funcall 'Other))",
        "(Probe :value (apply 'Other nil))",
        "(Probe) 42",
        "(Probe :value (if t 1 2))",
        "(Probe :value (let ((x 1)) x))",
        "(Probe :value (concat (Other)))",
        "(Probe :value ((lambda (x) x) 1))",
        "(Probe :value (:k 1))",
        "(Unknown 1)",
        "42",
        "(defun f () 1) (Probe)",
    ] {
        assert!(classify(src).is_none(), "{src} should not be direct");
    }
}

#[test]
fn the_effective_roster_drops_standalone_tools_unless_direct() {
    let full = roster();
    let composed = direct::effective_roster(&full, None);
    let names: Vec<_> = composed.tools.iter().map(|t| &*t.name).collect();
    assert_eq!(names, ["Probe", "Other"]);
    let call = classify("(Ask)").unwrap();
    assert_eq!(direct::effective_roster(&full, Some(&call)), full);
}
