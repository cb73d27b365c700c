//! The reference's closed tables list exactly the names in the code's closed tables.
//!
//! Each test compares a table parsed from `spec/reference/*.md` with the corresponding
//! constant of the implementation, reporting the names missing on either side.

use ptc_spec::{
    duplicates, reference_budget_keys, reference_error_kinds, reference_primitive_names,
    reference_primitives,
};
use std::collections::BTreeSet;

fn compare(what: &str, reference: &[String], code: &[&str]) {
    let dup = duplicates(reference);
    assert!(dup.is_empty(), "{what}: reference lists twice: {dup:?}");
    let reference: BTreeSet<&str> = reference.iter().map(String::as_str).collect();
    let code: BTreeSet<&str> = code.iter().copied().collect();
    let missing: Vec<_> = code.difference(&reference).collect();
    let extra: Vec<_> = reference.difference(&code).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{what}: missing from the reference: {missing:?}; not in the code: {extra:?}"
    );
}

#[test]
fn primitive_table_matches_the_code() {
    let names: Vec<&str> = ptc_vm::prims::PRIMITIVES.iter().map(|p| p.name).collect();
    compare("primitives", &reference_primitive_names(), &names);
    assert_eq!(reference_primitive_names().len(), 80);
}

#[test]
fn primitive_signatures_match_the_code() {
    let mut wrong = Vec::new();
    for (name, signature) in reference_primitives() {
        if let Some(p) = ptc_vm::prims::PRIMITIVES.iter().find(|p| p.name == name)
            && p.signature != signature
        {
            wrong.push(format!(
                "{name}: reference `{signature}`, code `{}`",
                p.signature
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn budget_table_matches_the_code() {
    let keys: Vec<&str> = ptc_vm::Limits::KEYS.iter().map(|k| k.name).collect();
    compare("budgets", &reference_budget_keys(), &keys);
}

#[test]
fn error_kind_table_matches_the_code() {
    let kinds: Vec<&str> = ptc_vm::ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
    compare("error kinds", &reference_error_kinds(), &kinds);
}

#[test]
fn special_form_table_matches_the_compiler() {
    compare(
        "special forms",
        &ptc_spec::reference_special_form_names(),
        &ptc_compiler::tables::SPECIAL_FORMS,
    );
}

#[test]
fn transformer_table_matches_the_compiler() {
    compare(
        "transformers",
        &ptc_spec::reference_transformer_names(),
        &ptc_compiler::tables::TRANSFORMERS,
    );
}
