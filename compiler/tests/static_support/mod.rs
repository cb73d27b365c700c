//! Shared helpers of the `static_*` tests: read source text into `Sexp` forms with the
//! real reader, print them back, and run the static pipeline.

#![allow(dead_code)]

use ptc_compiler::diagnostic::Diagnostic;
use ptc_compiler::internals::ast::{Sexp, SexpKind};
use ptc_compiler::internals::definitions::{self, Definitions};
use ptc_compiler::internals::direct;
use ptc_compiler::internals::preflight;
use ptc_compiler::internals::reader;
use ptc_compiler::roster::Roster;
use ptc_compiler::tables::prin1;
use ptc_vm::{Interner, Limits};

/// Reads every top-level form of `src` with the real reader (default limits).
pub fn read(src: &str, interner: &mut Interner) -> Vec<Sexp> {
    match reader::read(src, &Limits::default(), interner) {
        Ok(forms) => forms,
        Err(diagnostics) => panic!("{src} does not read: {diagnostics:?}"),
    }
}

/// Reads exactly one form.
pub fn read_one(src: &str, interner: &mut Interner) -> Sexp {
    let mut forms = read(src, interner);
    assert_eq!(forms.len(), 1, "expected one form in {src}");
    forms.remove(0)
}

/// Reads one form, then renames the placeholder symbols `BQ`, `COMMA` and `SPLICE` to
/// `` ` ``, `,` and `,@` (for shapes the reader's sugar cannot produce).
pub fn read_raw(src: &str, interner: &mut Interner) -> Sexp {
    let mut form = read_one(src, interner);
    let pairs: Vec<_> = [("BQ", "`"), ("COMMA", ","), ("SPLICE", ",@")]
        .into_iter()
        .map(|(from, to)| (interner.intern(from), interner.intern(to)))
        .collect();
    let mut pending = vec![&mut form];
    while let Some(datum) = pending.pop() {
        match &mut datum.kind {
            SexpKind::Sym(symbol) => {
                if let Some((_, to)) = pairs.iter().find(|(from, _)| from == symbol) {
                    *symbol = *to;
                }
            }
            SexpKind::List(items) | SexpKind::Vector(items) => pending.extend(items.iter_mut()),
            _ => {}
        }
    }
    form
}

/// Prints forms separated by spaces, as `prin1` would.
pub fn show(forms: &[Sexp], interner: &Interner) -> String {
    forms
        .iter()
        .map(|f| prin1(f, interner))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The static pipeline up to preflight: direct classification, definitions, preflight.
/// Returns the definitions or every diagnostic.
pub fn check(
    src: &str,
    roster: &Roster,
    limits: &Limits,
    interner: &mut Interner,
) -> Result<Definitions, Vec<Diagnostic>> {
    let forms = read(src, interner);
    let direct = direct::classify(&forms, roster, interner);
    let effective = direct::effective_roster(roster, direct.as_ref());
    let definitions = definitions::collect(forms, &effective, interner)?;
    preflight::preflight(
        &definitions,
        roster,
        direct.as_ref(),
        limits,
        interner,
        None,
        preflight::Keep::Nothing,
    )?;
    Ok(definitions)
}

/// The messages of `check`'s diagnostics (empty when accepted).
pub fn messages(src: &str, roster: &Roster) -> Vec<String> {
    let mut interner = Interner::new();
    match check(src, roster, &Limits::default(), &mut interner) {
        Ok(_) => Vec::new(),
        Err(diagnostics) => diagnostics.into_iter().map(|d| d.message).collect(),
    }
}
