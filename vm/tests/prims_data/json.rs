//! The JSON mapping: both directions, budgets, depth, and weights.

use super::*;

fn from(json: &serde_json::Value) -> Result<String, (ErrorKind, String)> {
    let mut symbols = new_symbols();
    json::from_json(json, &mut symbols, &Limits::default())
        .map(|v| print::to_string(&v, Style::Prin1, &symbols))
        .map_err(|e| (e.kind(), e.message().to_owned()))
}

fn to(text: &str) -> Result<serde_json::Value, (ErrorKind, String)> {
    let mut symbols = new_symbols();
    let value = read(text, &mut symbols);
    json::to_json(&value, &symbols, &Limits::default())
        .map_err(|e| (e.kind(), e.message().to_owned()))
}

#[test]
fn json_to_guest() {
    assert_eq!(
        from(&json!({"b": 1, "a": [true, false, null], "c": {"d": "x"}})).unwrap(),
        "(:b 1 :a (t :json-false :null) :c (:d \"x\"))"
    );
    assert_eq!(from(&json!([])).unwrap(), "nil");
    assert_eq!(from(&json!({})).unwrap(), "nil");
    assert_eq!(from(&json!(1.5)).unwrap(), "1.5");
    assert_eq!(from(&json!(u64::MAX)).unwrap(), "18446744073709551615");
    assert_eq!(from(&json!(i64::MIN)).unwrap(), "-9223372036854775808");
    let parsed: serde_json::Value = serde_json::from_str("123456789012345678901234567890").unwrap();
    assert_eq!(from(&parsed).unwrap(), "1.2345678901234568e+29");
    let mut symbols = new_symbols();
    let script_key = symbols.intern(":path");
    let value = json::from_json(&json!({"path": 1}), &mut symbols, &Limits::default()).unwrap();
    assert!(matches!(value.as_cons().map(|c| c.car()), Some(Value::Sym(s)) if *s == script_key));
}

#[test]
fn guest_to_json() {
    assert_eq!(to("(:a 1 :b (1 2))").unwrap(), json!({"a": 1, "b": [1, 2]}));
    assert_eq!(to("(:b 1 :a 2)").unwrap().to_string(), r#"{"b":1,"a":2}"#);
    assert_eq!(to("(:a 1 :a 2)").unwrap(), json!({"a": 1}));
    assert_eq!(to("(:a 1 :b)").unwrap(), json!([":a", 1, ":b"]));
    assert_eq!(to("(:a 1 b 2)").unwrap(), json!([":a", 1, "b", 2]));
    assert_eq!(to("(:null 1)").unwrap(), json!([null, 1]));
    assert_eq!(to("[1 \"x\" nil t]").unwrap(), json!([1, "x", null, true]));
    assert_eq!(
        to("(:json-false :null foo)").unwrap(),
        json!([false, null, "foo"])
    );
    assert_eq!(to("nil").unwrap(), json!(null));
    assert_eq!(to("2.5").unwrap(), json!(2.5));
    assert_eq!(to("18446744073709551615").unwrap(), json!(u64::MAX));
    let value_error = |message: &str| Err((ErrorKind::Value, message.to_owned()));
    assert_eq!(
        to("18446744073709551616"),
        value_error("Guest integers beyond 64 bits cannot cross a tool or result boundary")
    );
    assert_eq!(
        to("(1 0.0e+NaN)"),
        value_error("Guest NaN and infinite floats cannot cross a tool or result boundary")
    );
    assert_eq!(
        to("(1 . 2)"),
        value_error("Guest improper lists cannot cross a tool or result boundary")
    );
    let closure = Value::Closure(Arc::new(ptc_vm::value::Closure {
        function: 0,
        captures: ptc_vm::value::Captures::new(),
    }));
    let error =
        json::to_json(&Value::list([closure]), &new_symbols(), &Limits::default()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Value);
    assert_eq!(
        error.message(),
        "Guest closures cannot cross a tool or result boundary"
    );
}

#[test]
fn json_respects_the_value_budget() {
    let limits = Limits {
        value_bytes: 10,
        value_nodes: 6,
        ..Limits::default()
    };
    let mut symbols = new_symbols();
    let error = json::from_json(&json!("0123456789a"), &mut symbols, &limits).unwrap_err();
    assert_eq!(
        (error.kind(), error.message()),
        (
            ErrorKind::Value,
            "Guest value exceeds its value byte budget of 10"
        )
    );
    let error = json::from_json(&json!([1, 2, 3]), &mut symbols, &limits).unwrap_err();
    assert_eq!(error.message(), "Guest value exceeds its 6 node budget");
    assert!(json::from_json(&json!([1, 2]), &mut symbols, &limits).is_ok());
    let big = Value::list((0..4).map(Value::Int));
    let error = json::to_json(&big, &symbols, &limits).unwrap_err();
    assert_eq!(error.message(), "Guest value exceeds its 6 node budget");
}

#[test]
fn json_weight_matches_the_value_weight() {
    let mut symbols = new_symbols();
    let document = json!({"k": [1, "two", 3.5, null, false, true, {"": -7}], "long": u64::MAX});
    let value = json::from_json(&document, &mut symbols, &Limits::default()).unwrap();
    let weight = value.weight();
    let exact = Limits {
        value_bytes: weight.bytes,
        value_nodes: weight.nodes,
        ..Limits::default()
    };
    assert!(json::from_json(&document, &mut symbols, &exact).is_ok());
    let tighter = Limits {
        value_nodes: weight.nodes - 1,
        ..exact
    };
    assert!(json::from_json(&document, &mut symbols, &tighter).is_err());
    let tighter = Limits {
        value_bytes: weight.bytes - 1,
        ..exact
    };
    assert!(json::from_json(&document, &mut symbols, &tighter).is_err());
}

#[test]
fn deep_json_converts_on_a_small_stack() {
    let mut document = json!(1);
    for _ in 0..3_000 {
        document = serde_json::Value::Array(vec![document]);
    }
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn_scoped(scope, || {
                let mut symbols = new_symbols();
                let value = json::from_json(&document, &mut symbols, &Limits::default()).unwrap();
                assert_eq!(value.weight().nodes, 3_000 * 2 + 1);
            })
            .unwrap()
            .join()
            .unwrap();
    });
    // Drop the deep serde_json value without recursing too far on this thread.
    let mut stack = vec![document];
    while let Some(mut v) = stack.pop() {
        if let serde_json::Value::Array(items) = &mut v {
            stack.append(items);
        }
    }
}

#[test]
fn hash_tables_cross_as_objects_and_count_their_growth() {
    use ptc_vm::value::HashTable;
    use ptc_vm::value::table::Test;
    let mut symbols = new_symbols();
    let table = Arc::new(HashTable::new(Test::Equal, 65));
    let key = Value::Sym(symbols.intern(":k"));
    table.put(key, Value::Int(1));
    table.put(Value::string("s"), Value::list([Value::Int(2)]));
    let value = Value::Hash(Arc::clone(&table));
    let limits = Limits::default();
    assert_eq!(
        json::to_json(&value, &symbols, &limits).unwrap(),
        json!({"k": 1, "s": [2]})
    );
    // A list holding the table many times, built while it was small, then the table grows:
    // the conversion counts each expansion and stops at the value budget.
    let many = Value::list((0..50).map(|_| value.clone()));
    let small = Limits {
        value_nodes: 2_000,
        ..Limits::default()
    };
    assert!(json::to_json(&many, &symbols, &small).is_ok());
    for n in 0..100 {
        table.put(Value::string(n.to_string()), Value::Int(n));
    }
    // The table alone still fits; fifty expansions of it do not.
    assert!(json::to_json(&value, &symbols, &small).is_ok());
    let error = json::to_json(&many, &symbols, &small).unwrap_err();
    assert_eq!(
        (error.kind(), error.message()),
        (ErrorKind::Value, "Guest value exceeds its 2000 node budget")
    );
    table.put(Value::Int(7), Value::Nil);
    // A key that is neither a string nor a symbol cannot become an object key.
    let error = json::to_json(&value, &symbols, &limits).unwrap_err();
    assert!(
        error.message().contains("keys are not strings or symbols"),
        "{}",
        error.message()
    );
}
