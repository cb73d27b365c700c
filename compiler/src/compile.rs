//! The whole static pipeline behind [`compile`] and [`check`].
//!
//! read → direct-call classification → definition collection (against the effective
//! roster) → preflight (every diagnostic at once) → expansion of transformers and macros
//! (definition bodies first, in source order, then the script body) → lowering → the
//! verified program. Nothing runs before all of it succeeded, except macro bodies, which
//! run in the closed machine under the script's own budgets.

use crate::definitions::{self, DefinitionKind};
use crate::diagnostic::Diagnostic;
use crate::direct;
use crate::expand::Expansion;
use crate::lower::{self, FunctionDef, LowerInput};
use crate::macros::{VmMacros, parse_params};
use crate::preflight;
use crate::reader;
use crate::roster::Roster;
use ptc_vm::{Interner, Limits, Program, Span};
use std::sync::Arc;

/// A compiled script.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The program: immutable, `Send + Sync`, run as many times as wanted.
    pub program: Arc<Program>,
    /// `Some(tool)` when the script is provably one direct call of a roster tool, whose
    /// result the host should return as that tool's own result.
    pub direct: Option<String>,
}

/// Compiles `source` for `roster` under `limits`.
///
/// # Errors
/// Every diagnostic the first failing stage found (reader, definitions, preflight), or
/// the first expansion or lowering diagnostic.
pub fn compile(
    source: &str,
    roster: &Roster,
    limits: &Limits,
) -> Result<Compiled, Vec<Diagnostic>> {
    let mut interner = Interner::new();
    let forms = reader::read(source, limits, &mut interner)?;
    let span = forms
        .iter()
        .map(|f| f.span)
        .reduce(Span::join)
        .unwrap_or_default();
    let direct_call = direct::classify(&forms, roster, &interner);
    let effective = direct::effective_roster(roster, direct_call.as_ref());
    let definitions = definitions::collect(forms, &effective, &interner)?;
    preflight::preflight(
        &definitions,
        roster,
        direct_call.as_ref(),
        limits,
        &mut interner,
    )?;
    let tools: Vec<String> = effective.tools.iter().map(|t| t.name.clone()).collect();

    let mut macros = VmMacros::new(&definitions.items, limits, tools.clone());
    for definition in &definitions.items {
        macros
            .prepare(definition.name, &mut interner)
            .map_err(|d| vec![d])?;
    }
    let body = Expansion::new(limits, &mut interner)
        .expand_forms(definitions.body.clone(), &mut macros, &mut interner)
        .map_err(|d| vec![d])?;

    // Preflight sees the expanded code too, so an unknown operator a macro produced is
    // rejected before anything runs (spec/reference/deviations.md). Transformers only
    // produce known operators, so without macros there is nothing new to see.
    let has_macros = definitions
        .items
        .iter()
        .any(|d| d.kind == DefinitionKind::Macro);
    if has_macros {
        let expanded = definitions::Definitions {
            items: definitions
                .items
                .iter()
                .filter(|d| d.kind == DefinitionKind::Function)
                .map(|d| definitions::Definition {
                    body: macros.body(d.name).cloned().unwrap_or_default(),
                    ..d.clone()
                })
                .collect(),
            body: body.clone(),
        };
        preflight::preflight(
            &expanded,
            roster,
            direct_call.as_ref(),
            limits,
            &mut interner,
        )?;
    }

    let mut functions = Vec::new();
    let mut macro_names = Vec::new();
    for definition in &definitions.items {
        match definition.kind {
            DefinitionKind::Macro => macro_names.push(definition.name),
            DefinitionKind::Function => functions.push(FunctionDef {
                name: definition.name,
                params: definition.params.clone(),
                body: macros.body(definition.name).map_or(&[][..], Vec::as_slice),
                span: definition.span,
            }),
        }
    }
    let input = LowerInput {
        interner,
        functions,
        macros: macro_names,
        body: &body,
        span,
        tools,
    };
    let program = lower::lower(input, &parse_params).map_err(|d| vec![d])?;
    Ok(Compiled {
        program: Arc::new(program),
        direct: direct_call.map(|d| d.tool),
    })
}

/// Runs the static pipeline only: every diagnostic, or none when the script is accepted.
#[must_use]
pub fn check(source: &str, roster: &Roster, limits: &Limits) -> Vec<Diagnostic> {
    match compile(source, roster, limits) {
        Ok(_) => Vec::new(),
        Err(diagnostics) => diagnostics,
    }
}
