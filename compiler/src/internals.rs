//! The front end's modules, declared here so that this is their one public path (with the
//! `internals` feature; `crate::NAME` inside the crate). Not API: for the compiler's own
//! tests, the fuzz targets and the benches.
#![allow(unreachable_pub)]

#[path = "ast.rs"]
pub mod ast;
#[path = "definitions.rs"]
pub mod definitions;
#[path = "direct.rs"]
pub mod direct;
#[path = "expand.rs"]
pub mod expand;
#[path = "lambda_list.rs"]
pub mod lambda_list;
#[path = "lexer/mod.rs"]
pub mod lexer;
#[path = "lower/mod.rs"]
pub mod lower;
#[path = "parser.rs"]
pub mod parser;
#[path = "preflight.rs"]
pub mod preflight;
#[path = "preflight_args.rs"]
pub mod preflight_args;
#[path = "reader.rs"]
pub mod reader;
#[path = "sexp_print.rs"]
pub mod sexp_print;
#[path = "sugar.rs"]
pub mod sugar;
#[path = "suggest.rs"]
pub mod suggest;
#[path = "token.rs"]
pub mod token;
#[path = "transform.rs"]
pub mod transform;

#[allow(unused_imports)] // used by the internals users only
pub use reader::{read, read_script};
