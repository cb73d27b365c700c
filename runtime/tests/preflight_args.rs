//! Preflight's argument check is a subset of the runtime's validation (issue 15,
//! spec/reference/preflight.md "Tool arguments"), held by a property test over generated
//! schemas and literal calls:
//!
//! - for every schema, everything the runtime accepts (conversion of the guest argument
//!   list, then the compiled JSON Schema validator), preflight accepts;
//! - for schemas the contract fully expresses (types, enums of scalars, required keys,
//!   open or closed objects) and literals whose conversion depends only on the type,
//!   everything preflight accepts, the runtime accepts.
//!
//! The runtime's side runs the real pipeline: the call is compiled against a roster
//! without contracts, run in the machine up to its tool request, and the request's
//! argument list goes through `ptc_runtime::core::args::prepare`.

use proptest::prelude::*;
use ptc_compiler::{Roster, compile};
use ptc_runtime::core::args;
use ptc_runtime::{Registry, ToolContract, ToolRequestCtx, ToolResult};
use ptc_vm::{Limits, Machine, Step};
use serde_json::{Value as Json, json};

/// Whether preflight accepts `script` for the tool `T` with `schema`.
fn preflight_accepts(registry: &Registry, script: &str) -> bool {
    ptc_compiler::check(script, &registry.roster(), &Limits::default()).is_empty()
}

/// Whether the runtime's conversion and validation accept the one tool call `script`.
fn runtime_accepts(registry: &Registry, script: &str) -> bool {
    verdicts(registry, script).0
}

/// The runtime's verdict on the one tool call `script` (`args::prepare`, which skips the
/// validator when the tool's argument plan accepts the object), and the compiled validator's
/// own verdict on the same converted object (`None` when the arguments do not convert).
fn verdicts(registry: &Registry, script: &str) -> (bool, Option<bool>) {
    let limits = Limits::default();
    let compiled = compile(script, &Roster::new().tool("T"), &limits)
        .unwrap_or_else(|d| panic!("{script} does not compile without contracts: {d:?}"));
    let mut machine = Machine::new(compiled.program, limits);
    let mut step = machine.step();
    while matches!(step, Step::Pause) {
        step = machine.step();
    }
    let Step::Tool(request) = step else {
        panic!("{script}: expected one tool request");
    };
    let tool = registry.get("T").expect("registered");
    let prepared = args::prepare(tool, &request.args, machine.symbols(), machine.limits());
    let converted = args::convert_args(
        "T",
        &request.args,
        &tool.contract.input_schema,
        machine.symbols(),
        machine.limits(),
    );
    if let (Ok(prepared), Ok(converted)) = (&prepared, &converted) {
        assert_eq!(prepared, converted, "{script}");
    }
    let validator = tool.validator().expect("the schema compiled");
    let valid = converted.ok().map(|json| validator.is_valid(&json));
    (prepared.is_ok(), valid)
}

fn registry(schema: Json) -> Registry {
    let mut registry = Registry::new();
    registry
        .register(
            ToolContract::new("T", "Test tool.", schema),
            |_r: ToolRequestCtx| async { ToolResult::text("") },
        )
        .expect("the generated schema compiles");
    registry
}

const KEYS: [&str; 3] = ["a", "b", "c"];

/// A property schema the contract fully expresses.
fn simple_property() -> impl Strategy<Value = Json> {
    let types = prop::sample::select(vec![
        Json::Null,
        json!("string"),
        json!("integer"),
        json!("number"),
        json!("boolean"),
        json!("null"),
        json!("array"),
        json!("object"),
        json!(["string", "null"]),
        json!(["integer", "boolean"]),
        json!(["array", "object"]),
    ]);
    let enums = prop::sample::select(vec![
        Json::Null,
        json!(["fast", "full"]),
        json!([1, 3]),
        json!(["fast", 1, null, true]),
        json!([false, ":kw"]),
    ]);
    (types, enums).prop_map(|(t, e)| {
        let mut property = serde_json::Map::new();
        if !t.is_null() {
            property.insert("type".into(), t);
        }
        if !e.is_null() {
            property.insert("enum".into(), e);
        }
        Json::Object(property)
    })
}

/// A property schema with keywords the contract leaves to the validator.
fn wider_property() -> impl Strategy<Value = Json> {
    prop_oneof![
        simple_property(),
        simple_property().prop_map(|mut p| {
            p["minimum"] = json!(2);
            p
        }),
        simple_property().prop_map(|mut p| {
            p["maxLength"] = json!(2);
            p
        }),
        Just(json!({"$ref": "#/$defs/s"})),
        Just(json!({"oneOf": [{"type": "string"}, {"type": "integer"}]})),
        Just(json!({"enum": [1.5, 2, [1]]})),
        Just(json!({"type": "object", "properties": {"x": {"type": "integer"}}})),
        Just(json!({"type": "array", "items": {"type": "string"}})),
        Just(json!(true)),
        Just(json!(false)),
    ]
}

fn schema(property: impl Strategy<Value = Json>, wider: bool) -> impl Strategy<Value = Json> {
    let closed = if wider {
        prop::sample::select(vec![
            Json::Null,
            json!(false),
            json!(true),
            json!({"type": "string"}),
        ])
        .boxed()
    } else {
        prop::sample::select(vec![Json::Null, json!(false), json!(true)]).boxed()
    };
    (
        prop::collection::vec(property, 3),
        prop::collection::vec(any::<bool>(), 4),
        closed,
        any::<bool>(),
    )
        .prop_map(move |(properties, required, closed, top_ref)| {
            let mut schema = json!({"type": "object", "properties": {}});
            for (key, property) in KEYS.iter().zip(properties) {
                schema["properties"][*key] = property;
            }
            let required: Vec<&str> = ["a", "b", "c", "d"]
                .into_iter()
                .zip(required)
                .filter(|(_, r)| *r)
                .map(|(k, _)| k)
                .collect();
            schema["required"] = json!(required);
            if !closed.is_null() {
                schema["additionalProperties"] = closed;
            }
            schema["$defs"] = json!({"s": {"type": "string"}});
            if wider && top_ref {
                schema["$ref"] = json!("#/$defs/o");
                schema["$defs"]["o"] = json!({"required": ["a"]});
            }
            schema
        })
}

/// Literal argument values whose conversion depends only on the property's type.
fn simple_value() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        r#""s""#,
        r#""fast""#,
        r#""10""#,
        r#"":kw""#,
        "0",
        "1",
        "3",
        "-2",
        "1.5",
        "2.0",
        "t",
        "nil",
        ":null",
        ":json-false",
        ":kw",
        ":fast",
        "'fast",
        "[1 \"x\"]",
        "[]",
        "'(:x 1)",
    ])
}

/// Any literal or computed value.
fn wider_value() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        4 => simple_value(),
        1 => prop::sample::select(vec![
            "'(1 2)",
            "'(a b)",
            "(car '(\"s\"))",
            "(+ 1 2)",
            "'(:x \"no\")",
            "18446744073709551615",
            "99999999999999999999",
            "\"abc\"",
        ]),
    ]
}

/// An argument list: mostly `:key value` pairs, sometimes a positional literal, a
/// computed key or a trailing key; written as a direct call, a `funcall` of `'T` or `#'T`,
/// or an `apply` whose last list is `nil`, quoted data, a `(list ...)` call or (wider only)
/// a variable bound to quoted data, split at any point.
fn call(value: impl Strategy<Value = &'static str>, wider: bool) -> impl Strategy<Value = String> {
    let key = if wider {
        prop::sample::select(vec![":a", ":b", ":c", ":d", ":a", ":b", "k", "\"a\"", "3"]).boxed()
    } else {
        prop::sample::select(vec![":a", ":b", ":c", ":d", ":a", ":b"]).boxed()
    };
    let shapes = if wider { 7 } else { 6 };
    (
        prop::collection::vec((key, value), 0..4),
        prop::option::weighted(0.1, prop::sample::select(vec![":a", ":c"])),
        0..shapes,
        any::<prop::sample::Index>(),
    )
        .prop_map(|(pairs, trailing, shape, split)| {
            let mut tokens: Vec<&str> = Vec::new();
            for (key, value) in pairs {
                tokens.push(key);
                tokens.push(value);
            }
            tokens.extend(trailing);
            let at = split.index(tokens.len() + 1);
            let (leading, tail) = tokens.split_at(at);
            let (leading, tail) = (leading.join(" "), tail.join(" "));
            let all = tokens.join(" ");
            match shape {
                0 => format!("(let ((k :b)) (T {all}))"),
                1 => format!("(let ((k :b)) (funcall 'T {all}))"),
                2 => format!("(let ((k :b)) (funcall #'T {all}))"),
                3 if tail.is_empty() => format!("(let ((k :b)) (apply 'T {leading} nil))"),
                3 => format!("(let ((k :b)) (apply 'T {leading} '({tail})))"),
                4 => format!("(let ((k :b)) (apply #'T {leading} (list {tail})))"),
                5 => format!("(let ((k :b)) (apply 'T {all} nil))"),
                _ => format!("(let ((k :b) (rest '({tail}))) (apply 'T {leading} rest))"),
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Everything the runtime accepts, preflight accepts (any schema, any argument).
    #[test]
    fn preflight_never_rejects_what_the_runtime_accepts(
        schema in schema(wider_property(), true),
        script in call(wider_value(), true),
    ) {
        let registry = registry(schema.clone());
        if runtime_accepts(&registry, &script) {
            prop_assert!(
                preflight_accepts(&registry, &script),
                "preflight rejects a call the runtime accepts\nschema: {schema}\nscript: {script}\n{:?}",
                ptc_compiler::check(&script, &registry.roster(), &Limits::default())
            );
        }
    }

    /// For schemas the contract fully expresses, preflight and the runtime agree.
    #[test]
    fn preflight_agrees_with_the_runtime_on_expressible_schemas(
        schema in schema(simple_property(), false),
        script in call(simple_value(), false),
    ) {
        let registry = registry(schema.clone());
        let runtime = runtime_accepts(&registry, &script);
        let preflight = preflight_accepts(&registry, &script);
        prop_assert_eq!(
            preflight, runtime,
            "schema: {}\nscript: {}\npreflight: {:?}", schema, script,
            ptc_compiler::check(&script, &registry.roster(), &Limits::default())
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// The argument plan's fast path accepts exactly what the validator accepts, for
    /// schemas it understands and for those it leaves to the validator.
    #[test]
    fn the_fast_path_agrees_with_the_validator(
        schema in prop_oneof![
            schema(simple_property(), false),
            schema(plain_property(), false),
            schema(wider_property(), true),
        ],
        script in call(wider_value(), true),
    ) {
        let registry = registry(schema.clone());
        let (prepared, valid) = verdicts(&registry, &script);
        prop_assert_eq!(
            prepared, valid == Some(true),
            "schema: {}\nscript: {}", schema, script
        );
    }
}

/// A property schema of `type` alone (what the fast path decides without the validator).
fn plain_property() -> impl Strategy<Value = Json> {
    simple_property().prop_map(|mut p| {
        if let Some(object) = p.as_object_mut() {
            object.remove("enum");
            object.insert("description".into(), json!("d"));
        }
        p
    })
}

#[test]
fn the_examples_agree() {
    let schema = json!({"type": "object", "properties": {
        "file_path": {"type": "string"}, "limit": {"type": "integer"}},
      "required": ["file_path"], "additionalProperties": false});
    let registry = registry(schema);
    for (script, ok) in [
        (r#"(T :file_path "a" :limit 2)"#, true),
        (r#"(T :file_path "a" :limit "2")"#, false),
        (r#"(T :file_pth "a")"#, false),
        (r#"(T :limit 2)"#, false),
        (r#"(T "a")"#, false),
        (r#"(T :file_path "a" :limit 2.0)"#, true),
        (r#"(funcall 'T :file_path "a" :limit 2)"#, true),
        (r#"(funcall #'T :file_path "a" :limit "2")"#, false),
        (r#"(funcall 'T :limit 2)"#, false),
        (r#"(apply 'T :file_path "a" '(:limit 2))"#, true),
        (r#"(apply 'T '(:file_path "a" :limit "2"))"#, false),
        (r#"(apply #'T :limit 2 (list :file_pth "a"))"#, false),
        (r#"(apply 'T :file_path "a" nil)"#, true),
        (r#"(apply 'T nil)"#, false),
        (
            r#"(let ((rest '(:file_path "a"))) (apply 'T :limit 2 rest))"#,
            true,
        ),
        (
            r#"(let ((rest '("a"))) (apply 'T :limit 2 :file_path rest))"#,
            true,
        ),
        (
            r#"(let ((rest '(:file_path "a"))) (apply 'T :limit "2" rest))"#,
            false,
        ),
        (
            r#"(let ((rest '(:file_path "a"))) (apply 'T :file_pth 1 rest))"#,
            false,
        ),
    ] {
        assert_eq!(runtime_accepts(&registry, script), ok, "runtime: {script}");
        assert_eq!(
            preflight_accepts(&registry, script),
            ok,
            "preflight: {script}"
        );
    }
}

/// An object property takes a list only as keyword/value pairs: a quoted list inside a
/// quoted `apply` list reads as `(quote (:x 1))`, which the runtime refuses (found by the
/// agreement property, 2026-12-05).
#[test]
fn an_object_takes_only_keyword_pairs() {
    let schema = json!({"type": "object", "properties": {"c": {"type": "object"}}});
    let registry = registry(schema);
    for (script, ok) in [
        (r#"(T :c '(:x 1))"#, true),
        (r#"(apply 'T '(:c (:x 1)))"#, true),
        (r#"(apply 'T '(:c '(:x 1)))"#, false),
        (r#"(T :c '(x 1))"#, false),
        (r#"(T :c '(:x))"#, false),
    ] {
        assert_eq!(runtime_accepts(&registry, script), ok, "runtime: {script}");
        assert_eq!(
            preflight_accepts(&registry, script),
            ok,
            "preflight: {script}"
        );
    }
}
