//! `--stub NAME[=BEHAVIOUR]`: test and dry-run tools.
//!
//! | BEHAVIOUR | the call |
//! |---|---|
//! | `name` (default) | returns the string `<NAME>` |
//! | `arg:KEY` | returns the value of argument KEY (a string as text, other JSON as data) |
//! | `args` | returns the arguments as data |
//! | `text:TEXT` | returns TEXT |
//! | `json:JSON` | returns JSON as data |
//! | `error:MESSAGE` | fails with MESSAGE |
//! | `deny:REASON` | is denied by the permission policy (the handler never runs) |
//! | `sleep:MS` | waits MS milliseconds, then behaves as `name` |
//! | `panic:MESSAGE` | panics (contained; the guest gets an error value) |
//! | `hang` | never answers (until cancelled or timed out) |
//! | `note:TEXT` | returns `<NAME>` with the context note TEXT |
//!
//! Stubs accept any keyword arguments (their schema is an open object).

use ptc_runtime::core::RegistryError;
use ptc_runtime::{Decision, Registry, ToolContract, ToolRequestCtx, ToolResult};
use serde_json::{Value as Json, json};
use std::collections::HashMap;
use std::time::Duration;

/// One stub's behaviour.
#[derive(Debug, Clone, PartialEq)]
pub enum Behaviour {
    /// `<NAME>`.
    Name,
    /// The value of one argument.
    Arg(String),
    /// All arguments.
    Args,
    /// Fixed text.
    Text(String),
    /// Fixed JSON.
    Json(Json),
    /// A failure.
    Error(String),
    /// A permission denial.
    Deny(String),
    /// A delay, then `<NAME>`.
    Sleep(u64),
    /// A panic.
    Panic(String),
    /// No answer.
    Hang,
    /// `<NAME>` plus a context note.
    Note(String),
}

/// A parsed `--stub`.
#[derive(Debug, Clone, PartialEq)]
pub struct Stub {
    /// The tool name.
    pub name: String,
    /// What it does.
    pub behaviour: Behaviour,
    /// The behaviour as given on the command line.
    pub spec: String,
}

/// Parses `NAME[=BEHAVIOUR]`.
///
/// # Errors
/// An unknown behaviour, a bad JSON literal or a bad millisecond count.
pub fn parse(spec: &str) -> Result<Stub, String> {
    let (name, behaviour) = match spec.split_once('=') {
        Some((name, behaviour)) => (name, behaviour),
        None => (spec, "name"),
    };
    let (kind, rest) = match behaviour.split_once(':') {
        Some((kind, rest)) => (kind, Some(rest)),
        None => (behaviour, None),
    };
    let behaviour = match (kind, rest) {
        ("name", None) => Behaviour::Name,
        ("args", None) => Behaviour::Args,
        ("hang", None) => Behaviour::Hang,
        ("arg", Some(key)) => Behaviour::Arg(key.trim_start_matches(':').to_owned()),
        ("text", Some(text)) => Behaviour::Text(text.to_owned()),
        ("json", Some(text)) => Behaviour::Json(
            serde_json::from_str(text)
                .map_err(|error| format!("--stub {name}: invalid JSON: {error}"))?,
        ),
        ("note", Some(text)) => Behaviour::Note(text.to_owned()),
        ("error", Some(message)) => Behaviour::Error(message.to_owned()),
        ("deny", Some(reason)) => Behaviour::Deny(reason.to_owned()),
        ("panic", message) => Behaviour::Panic(message.unwrap_or("stub panic").to_owned()),
        ("sleep", Some(ms)) => Behaviour::Sleep(
            ms.parse()
                .map_err(|_| format!("--stub {name}: sleep takes milliseconds, not `{ms}`"))?,
        ),
        _ => {
            return Err(format!(
                "--stub {name}: unknown behaviour `{behaviour}`; use name, arg:KEY, args, text:TEXT, \
                 json:JSON, error:MESSAGE, deny:REASON, sleep:MS, panic:MESSAGE, hang or note:TEXT"
            ));
        }
    };
    Ok(Stub {
        name: name.to_owned(),
        behaviour,
        spec: spec.split_once('=').map_or("name", |(_, b)| b).to_owned(),
    })
}

fn answer(name: &str, behaviour: &Behaviour, arguments: &Json) -> ToolResult {
    match behaviour {
        Behaviour::Name | Behaviour::Sleep(_) | Behaviour::Deny(_) | Behaviour::Hang => {
            ToolResult::text(format!("<{name}>"))
        }
        Behaviour::Arg(key) => match arguments.get(key) {
            Some(Json::String(text)) => ToolResult::text(text.clone()),
            Some(other) => ToolResult::json(other.clone()),
            None => ToolResult::error(format!("Error: {name} was called without :{key}")),
        },
        Behaviour::Args => ToolResult::json(arguments.clone()),
        Behaviour::Text(text) => ToolResult::text(text.clone()),
        Behaviour::Json(json) => ToolResult::json(json.clone()),
        Behaviour::Error(message) => ToolResult::error(message.clone()),
        Behaviour::Panic(message) => panic!("{message}"),
        Behaviour::Note(note) => ToolResult::text(format!("<{name}>")).with_note(note.clone()),
    }
}

/// Registers `stub` in `registry`.
///
/// # Errors
/// As [`Registry::register`].
pub fn register(registry: &mut Registry, stub: &Stub) -> Result<(), RegistryError> {
    let name = stub.name.clone();
    let behaviour = stub.behaviour.clone();
    let description = format!("Stub tool {name} ({}).", stub.spec);
    registry.register(
        ToolContract::new(&stub.name, description, json!({"type": "object"})),
        move |request: ToolRequestCtx| {
            let name = name.clone();
            let behaviour = behaviour.clone();
            async move {
                match behaviour {
                    Behaviour::Sleep(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
                    Behaviour::Hang => std::future::pending::<()>().await,
                    _ => {}
                }
                answer(&name, &behaviour, &request.arguments)
            }
        },
    )?;
    Ok(())
}

/// The policy denying every `deny:REASON` stub.
pub fn policy(stubs: &[Stub]) -> impl Fn(&ToolRequestCtx) -> Decision + Send + Sync + use<> {
    let denied: HashMap<String, String> = stubs
        .iter()
        .filter_map(|stub| match &stub.behaviour {
            Behaviour::Deny(reason) => Some((stub.name.clone(), reason.clone())),
            _ => None,
        })
        .collect();
    move |request: &ToolRequestCtx| match denied.get(&*request.tool) {
        Some(reason) => Decision::Deny(reason.clone()),
        None => Decision::Allow,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaviours_parse() {
        assert_eq!(parse("A").unwrap().behaviour, Behaviour::Name);
        assert_eq!(
            parse("A=arg:path").unwrap().behaviour,
            Behaviour::Arg("path".into())
        );
        assert_eq!(
            parse("A=text:a:b").unwrap().behaviour,
            Behaviour::Text("a:b".into())
        );
        assert_eq!(
            parse("A=json:[1]").unwrap().behaviour,
            Behaviour::Json(json!([1]))
        );
        assert_eq!(parse("A=sleep:5").unwrap().behaviour, Behaviour::Sleep(5));
        assert_eq!(
            parse("A=note:look").unwrap().behaviour,
            Behaviour::Note("look".into())
        );
        assert_eq!(
            parse("A=deny:no").unwrap().behaviour,
            Behaviour::Deny("no".into())
        );
        assert!(
            parse("A=json:{")
                .unwrap_err()
                .starts_with("--stub A: invalid JSON")
        );
        assert!(parse("A=sleep:x").is_err());
        assert!(
            parse("A=frob")
                .unwrap_err()
                .contains("unknown behaviour `frob`")
        );
    }
}
