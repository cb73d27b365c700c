//! Property tests: `equal` is reflexive, symmetric and agrees with `eql` on numbers; JSON
//! round-trips; `sort` orders integers like `<`.

use super::*;
use proptest::prelude::*;

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::Int),
        any::<f64>().prop_map(Value::Float),
        (any::<i64>(), 1u32..3)
            .prop_map(|(n, shift)| { Value::integer(BigInt::from(n) << (64 * shift)) }),
        (-3i64..3).prop_map(Value::Int),
        prop_oneof![Just(0.0), Just(-0.0), Just(1.0), Just(f64::NAN)].prop_map(Value::Float),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Nil),
        Just(Value::T),
        number(),
        "[a-c]{0,3}".prop_map(Value::string),
        prop::sample::select(well_known::NAMES.to_vec())
            .prop_map(|name| Value::Sym(Interner::new().intern(name))),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::list),
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::vector),
            (inner.clone(), inner).prop_map(|(a, b)| Value::cons(a, b)),
        ]
    })
}

/// Rebuilds `value` with no sharing with the original.
fn deep_copy(value: &Value) -> Value {
    match value {
        Value::Str(s) => Value::string(s.as_str()),
        Value::Cons(c) => Value::cons(deep_copy(c.car()), deep_copy(c.cdr())),
        Value::Vector(v) => Value::vector(v.items().iter().map(deep_copy).collect::<Vec<_>>()),
        other => other.clone(),
    }
}

fn json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        "[a-z\"\\\\é]{0,4}".prop_map(serde_json::Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
            prop::collection::vec(("[a-z]{0,3}", inner), 0..5)
                .prop_map(|entries| { serde_json::Value::Object(entries.into_iter().collect()) }),
        ]
    })
}

/// What a JSON document becomes after a trip through the guest: `[]` and `{}` are nil,
/// which comes back as `null`.
fn normalise(json: &serde_json::Value) -> serde_json::Value {
    match json {
        serde_json::Value::Array(items) if items.is_empty() => serde_json::Value::Null,
        serde_json::Value::Object(map) if map.is_empty() => serde_json::Value::Null,
        serde_json::Value::Array(items) => items.iter().map(normalise).collect(),
        serde_json::Value::Object(map) => {
            serde_json::Value::Object(map.iter().map(|(k, v)| (k.clone(), normalise(v))).collect())
        }
        other => other.clone(),
    }
}

proptest! {
    #[test]
    fn equal_is_reflexive_and_structural(v in value()) {
        prop_assert!(equal::equal(&v, &v));
        prop_assert!(equal::equal(&v, &deep_copy(&v)));
        prop_assert!(equal::eq(&v, &v));
    }

    #[test]
    fn equal_is_symmetric(a in value(), b in value()) {
        prop_assert_eq!(equal::equal(&a, &b), equal::equal(&b, &a));
    }

    #[test]
    fn equal_agrees_with_eql_on_numbers(a in number(), b in number()) {
        prop_assert_eq!(equal::equal(&a, &b), equal::eql(&a, &b));
        prop_assert!(equal::eql(&a, &deep_copy(&a)));
    }

    #[test]
    fn json_round_trips(document in json()) {
        let mut symbols = new_symbols();
        let limits = Limits::default();
        let value = json::from_json(&document, &mut symbols, &limits).unwrap();
        let back = json::to_json(&value, &symbols, &limits).unwrap();
        prop_assert_eq!(&back, &normalise(&document));
        // And the normalised document is a fixed point of the trip.
        let again = json::from_json(&back, &mut symbols, &limits).unwrap();
        prop_assert_eq!(json::to_json(&again, &symbols, &limits).unwrap(), back);
    }

    #[test]
    fn sort_orders_numbers_like_less_than(items in prop::collection::vec(any::<i32>(), 0..40)) {
        let text = format!("(({}))", items.iter().map(ToString::to_string).collect::<Vec<_>>().join(" "));
        let mut expected = items.clone();
        expected.sort_unstable();
        let expected = format!("({})", expected.iter().map(ToString::to_string).collect::<Vec<_>>().join(" "));
        let expected = if items.is_empty() { "nil".to_owned() } else { expected };
        prop_assert_eq!(ok("sort", &text), expected);
    }
}
