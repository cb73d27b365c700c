//! The mapping between guest values and JSON, used for tool arguments (guest → JSON), tool
//! results (JSON → guest) and final values handed to a host.
//!
//! | JSON | guest value | notes |
//! |---|---|---|
//! | object `{"a":1,"b":2}` | keyword plist `(:a 1 :b 2)` | key order preserved; `{}` becomes `nil` |
//! | array `[1,2]` | list `(1 2)` | `[]` becomes `nil` |
//! | — | vector `[1 2]` → array | vectors only travel guest → JSON |
//! | string | string | |
//! | integer | integer (`Int`, or big between 2^63 and 2^64) | checked against the number-bit budget |
//! | number beyond 64 bits | float | serde_json parses such literals as floats |
//! | float | float | NaN and infinities cannot be JSON: kind `value` error |
//! | `true` | `t` | |
//! | `false` | `:json-false` | |
//! | `null` | `:null` | |
//! | — | `nil` → `null` | see below |
//! | — | other symbol → its name string | `foo` → `"foo"`, `:k` → `":k"` |
//! | — | closure | kind `value`: "Guest closures cannot cross a tool or result boundary" |
//! | — | hash table → object | keys: strings as is, symbols by name (keywords without their colon); other keys are a kind `value` error |
//!
//! A guest list converts to an object exactly when it is a non-empty, proper, even-length
//! list whose every key (even position) is a symbol whose name starts with `:` other than
//! `:null` and `:json-false`; the key is the name without its colon, and when a key repeats
//! the first occurrence wins (as `plist-get` reads it). Every other proper list becomes an
//! array — except an alist of dotted pairs (`((a . 1) ("b" . "x"))`: every element a
//! cons with a symbol or string car and an atom or vector cdr), which becomes an object
//! (`{"a":1,"b":"x"}`, keywords losing their colon), since no JSON array could carry its
//! pairs. Objects always come back as plists. Any other improper list is a kind `value`
//! error. The `:null`/`:json-false` exclusion
//! keeps arrays like `[null, 1]` from turning into objects; the price is that an object
//! whose keys include `"null"` or `"json-false"` comes back as an array. The lone symbol `:`
//! counts as a key so that the empty key `""` round-trips.
//!
//! `nil` maps to `null` because `nil` is the guest's "nothing": the false value and the
//! empty list at once, so no single JSON type is right for it. A tool argument given `nil`
//! most often means "no value"; where a schema says boolean, array or object, the runtime
//! (which knows the schema) converts the `null` to `false`, `[]` or `{}`.
//!
//! Integers beyond the 64-bit JSON range and non-finite floats are errors rather than
//! silently rounded values. Guest → JSON refuses values nested deeper than [`JSON_DEPTH`]
//! arrays/objects (serde_json parses at most 128 levels and serialises and drops
//! recursively, so deeper JSON would endanger the host stack downstream).
//!
//! Both directions are iterative, and both check the value budget (`value_bytes`,
//! `value_nodes`, kind `value`) before building anything: guest → JSON from the value's
//! cached weight, JSON → guest by a first pass that sums the weight the result will have.

use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::number::{bits_error, check_big, check_small};
use crate::symbol::{Symbols, well_known};
use crate::value::{ListIter, Value, Weight};
use num_bigint::BigInt;
use serde_json::{Map, Number, Value as Json};
use smallvec::SmallVec;

/// The deepest nesting of arrays and objects guest → JSON produces.
pub const JSON_DEPTH: usize = 128;

fn value_error(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Value, message)
}

fn closure_error() -> Error {
    Error::closure_at_boundary()
}

/// Checks a weight against the value budget.
pub fn check_weight(weight: Weight, limits: &Limits) -> Result<()> {
    if weight.bytes > limits.value_bytes {
        return Err(value_error(format!(
            "Guest value exceeds its value byte budget of {}",
            limits.value_bytes
        )));
    }
    if weight.nodes > limits.value_nodes {
        return Err(value_error(format!(
            "Guest value exceeds its {} node budget",
            limits.value_nodes
        )));
    }
    Ok(())
}

enum Items<'a> {
    List(ListIter<'a>),
    Vector(std::slice::Iter<'a, Value>),
}

impl<'a> Iterator for Items<'a> {
    type Item = &'a Value;

    fn next(&mut self) -> Option<&'a Value> {
        match self {
            Items::List(items) => items.next(),
            Items::Vector(items) => items.next(),
        }
    }
}

enum Out<'a> {
    Array(Items<'a>, Vec<Json>),
    Object(ListIter<'a>, String, Map<String, Json>),
    /// An alist of dotted pairs: each element's car is the key, its cdr the value.
    Alist(ListIter<'a>, String, Map<String, Json>),
}

/// A guest value as JSON (see the module table).
pub fn to_json(value: &Value, symbols: &Symbols, limits: &Limits) -> Result<Json> {
    let weight = value.weight();
    if weight.has_closure {
        return Err(closure_error());
    }
    check_weight(weight, limits)?;
    let mut walk = Walk {
        symbols,
        limits,
        total: weight,
    };
    walk.convert(value, 0)
}

/// One guest → JSON conversion: what it may use, and the weight counted so far (the value's
/// cached weight plus the live weight of every hash table it expanded).
struct Walk<'s> {
    symbols: &'s Symbols,
    limits: &'s Limits,
    total: Weight,
}

impl Walk<'_> {
    /// A hash table as an object: its live weight is added to the total and checked
    /// (containers cache a table's weight as of when they were built), then each value is
    /// converted one nesting level down. Recursion is bounded by [`JSON_DEPTH`].
    fn table(&mut self, table: &crate::value::HashTable, depth: usize) -> Result<Json> {
        if depth >= JSON_DEPTH {
            return Err(value_error(format!(
                "Guest value nests deeper than the {JSON_DEPTH} levels JSON allows"
            )));
        }
        self.total = self.total.plus(table.weight());
        check_weight(self.total, self.limits)?;
        let mut map = Map::new();
        for (key, value) in table.entries() {
            let key = match &key {
                Value::Str(_) | Value::Sym(_) => alist_key(&key, self.symbols),
                Value::Nil => "nil".to_owned(),
                Value::T => "t".to_owned(),
                _ => {
                    return Err(value_error(
                        "Hash tables whose keys are not strings or symbols cannot cross a tool or result boundary",
                    ));
                }
            };
            let json = self.convert(&value, depth + 1)?;
            map.entry(key).or_insert(json);
        }
        Ok(Json::Object(map))
    }

    /// `value` as JSON, `depth` levels of arrays and objects down.
    fn convert(&mut self, value: &Value, depth: usize) -> Result<Json> {
        let symbols = self.symbols;
        let mut stack: SmallVec<[Out<'_>; 4]> = SmallVec::new();
        let mut done = match value {
            Value::Hash(table) => return self.table(table, depth),
            _ => start_out(value, symbols, &mut stack, depth)?,
        };
        loop {
            if let Some(json) = done.take() {
                match stack.last_mut() {
                    None => return Ok(json),
                    Some(Out::Array(_, items)) => items.push(json),
                    Some(Out::Object(_, key, map) | Out::Alist(_, key, map)) => {
                        let key = std::mem::take(key);
                        if !map.contains_key(&key) {
                            map.insert(key, json);
                        }
                    }
                }
            }
            let next = match stack.last_mut() {
                None => return Ok(Json::Null),
                Some(Out::Array(items, _)) => items.next(),
                Some(Out::Object(rest, key, _)) => match rest.next() {
                    Some(Value::Sym(symbol)) => {
                        *key = symbols.name(*symbol).get(1..).unwrap_or("").to_owned();
                        rest.next()
                    }
                    _ => None,
                },
                Some(Out::Alist(rest, key, _)) => match rest.next() {
                    Some(Value::Cons(pair)) => {
                        *key = alist_key(pair.car(), symbols);
                        Some(pair.cdr())
                    }
                    _ => None,
                },
            };
            match next {
                Some(Value::Hash(table)) => done = Some(self.table(table, depth + stack.len())?),
                Some(child) => done = start_out(child, symbols, &mut stack, depth)?,
                None => {
                    done = match stack.pop() {
                        Some(Out::Array(_, items)) => Some(Json::Array(items)),
                        Some(Out::Object(_, _, map) | Out::Alist(_, _, map)) => {
                            Some(Json::Object(map))
                        }
                        None => Some(Json::Null),
                    }
                }
            }
        }
    }
}

/// Converts an atom, or opens a frame for an aggregate (returning `None`).
fn start_out<'a>(
    value: &'a Value,
    symbols: &Symbols,
    stack: &mut SmallVec<[Out<'a>; 4]>,
    depth: usize,
) -> Result<Option<Json>> {
    let json = match value {
        Value::Nil => Json::Null,
        Value::T => Json::Bool(true),
        Value::Int(n) => Json::Number(Number::from(*n)),
        Value::Big(n) => match u64::try_from(&**n) {
            Ok(n) => Json::Number(Number::from(n)),
            Err(_) => {
                return Err(value_error(
                    "Guest integers beyond 64 bits cannot cross a tool or result boundary",
                ));
            }
        },
        Value::Float(f) => match Number::from_f64(*f) {
            Some(n) => Json::Number(n),
            None => {
                return Err(value_error(
                    "Guest NaN and infinite floats cannot cross a tool or result boundary",
                ));
            }
        },
        Value::Str(s) => Json::String(s.as_str().to_owned()),
        Value::Sym(symbol) => match *symbol {
            well_known::NULL => Json::Null,
            well_known::JSON_FALSE => Json::Bool(false),
            other => Json::String(symbols.name(other).to_owned()),
        },
        Value::Closure(_) => return Err(closure_error()),
        // Converted by `Walk::table` before `start_out` is reached.
        Value::Hash(_) => Json::Null,
        Value::Vector(vector) => {
            open(
                stack,
                depth,
                Out::Array(
                    Items::Vector(vector.items().iter()),
                    Vec::with_capacity(vector.items().len()),
                ),
            )?;
            return Ok(None);
        }
        Value::Cons(_) => {
            match list_shape(value, symbols) {
                // Sized from the shape's count: no regrowth while filling.
                Shape::Object(pairs) => open(
                    stack,
                    depth,
                    Out::Object(value.iter(), String::new(), Map::with_capacity(pairs)),
                )?,
                Shape::Alist(pairs) => open(
                    stack,
                    depth,
                    Out::Alist(value.iter(), String::new(), Map::with_capacity(pairs)),
                )?,
                Shape::Array(items) => open(
                    stack,
                    depth,
                    Out::Array(Items::List(value.iter()), Vec::with_capacity(items)),
                )?,
                Shape::Improper => {
                    return Err(value_error(
                        "Guest improper lists cannot cross a tool or result boundary",
                    ));
                }
            }
            return Ok(None);
        }
    };
    Ok(Some(json))
}

fn open<'a>(stack: &mut SmallVec<[Out<'a>; 4]>, depth: usize, frame: Out<'a>) -> Result<()> {
    if stack.len() + depth >= JSON_DEPTH {
        return Err(value_error(format!(
            "Guest value nests deeper than the {JSON_DEPTH} levels JSON allows"
        )));
    }
    stack.push(frame);
    Ok(())
}

/// A list's JSON shape, with its member count (pairs for objects).
enum Shape {
    Object(usize),
    Alist(usize),
    Array(usize),
    Improper,
}

/// The object key of an alist element's car: a string as is, a symbol by name (a
/// keyword without its colon).
fn alist_key(key: &Value, symbols: &Symbols) -> String {
    match key {
        Value::Str(s) => s.as_str().to_owned(),
        Value::Sym(symbol) => {
            let name = symbols.name(*symbol);
            if symbol.is_keyword() {
                name.get(1..).unwrap_or("").to_owned()
            } else {
                name.to_owned()
            }
        }
        _ => String::new(),
    }
}

/// Whether `list` is a non-empty proper list of dotted pairs `(KEY . VALUE)` with symbol
/// or string keys and atom (or vector) values: an alist, which only an object can carry
/// (as a JSON array its pairs would be improper lists).
fn is_dotted_alist(list: &Value) -> bool {
    let mut items = list.iter();
    let mut count = 0usize;
    for item in items.by_ref() {
        let Value::Cons(pair) = item else {
            return false;
        };
        let key_ok = matches!(pair.car(), Value::Str(_))
            || matches!(pair.car(), Value::Sym(s) if *s != well_known::NULL && *s != well_known::JSON_FALSE);
        if !key_ok || matches!(pair.cdr(), Value::Nil | Value::Cons(_)) {
            return false;
        }
        count += 1;
    }
    count > 0 && items.rest().is_nil()
}

/// Whether a cons is an object-shaped plist, another proper list, or improper.
fn list_shape(list: &Value, symbols: &Symbols) -> Shape {
    let mut items = list.iter();
    let mut count: usize = 0;
    let mut keys_ok = true;
    for item in items.by_ref() {
        if count.is_multiple_of(2) && keys_ok {
            keys_ok = match item {
                Value::Sym(symbol) => {
                    *symbol != well_known::NULL
                        && *symbol != well_known::JSON_FALSE
                        && symbols.name(*symbol).starts_with(':')
                }
                _ => false,
            };
        }
        count += 1;
    }
    if !items.rest().is_nil() {
        Shape::Improper
    } else if is_dotted_alist(list) {
        Shape::Alist(count)
    } else if keys_ok && count > 0 && count.is_multiple_of(2) {
        Shape::Object(count / 2)
    } else {
        Shape::Array(count)
    }
}

/// A JSON aggregate being converted: its members walked from the end, so each converted
/// member is consed straight onto the list built so far (no temporary vector).
enum In<'a> {
    Array(std::iter::Rev<std::slice::Iter<'a, Json>>, Value),
    /// The entries, the list so far, and the key of the member being converted.
    Object(std::iter::Rev<serde_json::map::Iter<'a>>, Value, &'a str),
}

/// JSON as a guest value (see the module table). Object keys are interned into the run's
/// table as keywords, so they are `eq` to the script's keywords.
pub fn from_json(json: &Json, symbols: &mut Symbols, limits: &Limits) -> Result<Value> {
    check_weight(json_weight(json, limits)?, limits)?;
    let mut stack: SmallVec<[In<'_>; 4]> = SmallVec::new();
    let mut done = start_in(json, &mut stack, limits)?;
    loop {
        if let Some(value) = done.take() {
            match stack.last_mut() {
                None => return Ok(value),
                Some(In::Array(_, list)) => *list = Value::cons(value, std::mem::take(list)),
                Some(In::Object(_, list, key)) => {
                    let key = Value::Sym(intern_key(symbols, key)?);
                    *list = Value::cons(key, Value::cons(value, std::mem::take(list)));
                }
            }
        }
        let next = match stack.last_mut() {
            None => return Ok(Value::Nil),
            Some(In::Array(items, _)) => items.next(),
            Some(In::Object(entries, _, key)) => entries.next().map(|(name, child)| {
                *key = name.as_str();
                child
            }),
        };
        match next {
            Some(child) => done = start_in(child, &mut stack, limits)?,
            None => {
                done = match stack.pop() {
                    Some(In::Array(_, list) | In::Object(_, list, _)) => Some(list),
                    None => Some(Value::Nil),
                }
            }
        }
    }
}

/// The keyword `:KEY`, its name built on the stack when it is short.
fn intern_key(symbols: &mut Symbols, key: &str) -> Result<crate::symbol::Symbol> {
    let mut buffer = [b':'; 64];
    if let Some(room) = buffer.get_mut(1..=key.len()) {
        room.copy_from_slice(key.as_bytes());
        if let Some(Ok(name)) = buffer.get(..=key.len()).map(std::str::from_utf8) {
            return symbols.try_intern(name);
        }
    }
    symbols.try_intern(&format!(":{key}"))
}

fn start_in<'a>(
    json: &'a Json,
    stack: &mut SmallVec<[In<'a>; 4]>,
    limits: &Limits,
) -> Result<Option<Value>> {
    Ok(Some(match json {
        Json::Null => Value::Sym(well_known::NULL),
        Json::Bool(true) => Value::T,
        Json::Bool(false) => Value::Sym(well_known::JSON_FALSE),
        Json::Number(n) => number_value(n, limits)?,
        Json::String(s) => Value::string(s.as_str()),
        Json::Array(items) if items.is_empty() => Value::Nil,
        Json::Object(map) if map.is_empty() => Value::Nil,
        Json::Array(items) => {
            stack.push(In::Array(items.iter().rev(), Value::Nil));
            return Ok(None);
        }
        Json::Object(map) => {
            stack.push(In::Object(map.iter().rev(), Value::Nil, ""));
            return Ok(None);
        }
    }))
}

fn number_value(n: &Number, limits: &Limits) -> Result<Value> {
    if let Some(small) = n.as_i64() {
        check_small(small, limits)?;
        Ok(Value::Int(small))
    } else if let Some(large) = n.as_u64() {
        let big = BigInt::from(large);
        check_big(&big, limits)?;
        Ok(Value::integer(big))
    } else if let Some(f) = n.as_f64() {
        Ok(Value::Float(f))
    } else {
        Err(bits_error(limits))
    }
}

/// The weight `from_json(json)` will have, failing as soon as it passes the value budget.
fn json_weight(json: &Json, limits: &Limits) -> Result<Weight> {
    let mut total = Weight::default();
    let mut stack: SmallVec<[&Json; 16]> = smallvec::smallvec![json];
    while let Some(json) = stack.pop() {
        let here = match json {
            Json::Null => Weight::leaf(":null".len() as u64),
            Json::Bool(true) => Weight::leaf(1),
            Json::Bool(false) => Weight::leaf(":json-false".len() as u64),
            Json::Number(n) => number_value(n, limits)?.weight(),
            Json::String(s) => Weight::leaf(s.len() as u64),
            Json::Array(items) => {
                let conses = items.len() as u64;
                Weight {
                    bytes: conses,
                    nodes: conses.saturating_add(1),
                    has_closure: false,
                    has_table: false,
                }
            }
            Json::Object(map) => {
                let pairs = map.len() as u64;
                let key_bytes = map
                    .keys()
                    .fold(0u64, |sum, key| sum.saturating_add(key.len() as u64 + 1));
                Weight {
                    bytes: pairs.saturating_mul(2).saturating_add(key_bytes),
                    nodes: pairs.saturating_mul(3).saturating_add(1),
                    has_closure: false,
                    has_table: false,
                }
            }
        };
        total = total.plus(here);
        check_weight(total, limits)?;
        match json {
            Json::Array(items) => stack.extend(items.iter()),
            Json::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    Ok(total)
}
