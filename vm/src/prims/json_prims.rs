//! JSON text in and out of guest values, as Emacs's `json-encode` (json.el),
//! `json-serialize` and `json-parse-string` (the native ones) do it (issue 18).
//!
//! Invariants: both directions stay within [`JSON_DEPTH`] levels (deeper input is an
//! error, so the bounded recursion here cannot exhaust the host stack) and check the value
//! budget before building the result: encoding from the argument's cached weight and the
//! text's length, parsing by a first pass that sums the weight the result will have. The
//! object and array mapping of `json-parse-string` follows its keyword arguments
//! (`:object-type` `hash-table` (the default, an `equal` table with string keys, issue 46),
//! `plist` or `alist`; `:array-type` `array` (vectors) or `list`; `:null-object`,
//! `:false-object`). Parse failures signal `json-end-of-file`,
//! `json-trailing-content` or `json-parse-error` (catchable, data the message).

use super::PrimCtx;
use super::string::{new_string, string_arg, text_units, wrong_type};
use crate::error::{Error, ErrorKind, Result};
use crate::heap;
use crate::json::{JSON_DEPTH, check_weight};
use crate::symbol::well_known;
use crate::value::{Value, Weight};
use serde_json::{Map, Number, Value as Json};

fn arg(args: &[Value], index: usize) -> &Value {
    args.get(index).unwrap_or(&Value::Nil)
}

fn too_deep() -> Error {
    Error::signal(
        "json-object-too-deep",
        Value::Nil,
        format!("JSON nesting exceeds {JSON_DEPTH} levels"),
    )
}

fn number(ctx: &PrimCtx<'_>, value: &Value) -> Result<Json> {
    Ok(match value {
        Value::Int(n) => Json::Number(Number::from(*n)),
        Value::Float(f) => Json::Number(
            Number::from_f64(*f).ok_or_else(|| wrong_type(ctx, "finite-number-p", value))?,
        ),
        Value::Big(n) => {
            let text = n.to_string();
            serde_json::from_str(&text).map_err(|_| wrong_type(ctx, "fixnump", value))?
        }
        _ => Json::Null,
    })
}

/// Emacs `json-alist-p`: every element a cons whose car is an atom.
fn is_alist(value: &Value) -> bool {
    let mut walk = value.iter();
    let all = walk
        .by_ref()
        .all(|item| matches!(item, Value::Cons(cell) if !matches!(cell.car(), Value::Cons(_))));
    all && walk.rest().is_nil()
}

/// Emacs `json-plist-p`: keyword, value, keyword, value...
fn is_plist(value: &Value) -> bool {
    let mut rest = value;
    loop {
        match rest {
            Value::Nil => return true,
            Value::Cons(cell) => {
                let Value::Sym(key) = cell.car() else {
                    return false;
                };
                let Value::Cons(value_cell) = cell.cdr() else {
                    return false;
                };
                if !key.is_keyword() {
                    return false;
                }
                rest = value_cell.cdr();
            }
            _ => return false,
        }
    }
}

/// A key as `json-encode` writes it: strings as they are, symbols by name (keywords
/// without the colon); anything else is a `json-key-format` error.
fn encode_key(ctx: &PrimCtx<'_>, key: &Value) -> Result<String> {
    match key {
        Value::Str(text) => Ok(text.as_str().to_owned()),
        Value::Sym(symbol) => {
            let name = ctx.symbols.name(*symbol);
            Ok(name
                .strip_prefix(':')
                .filter(|_| symbol.is_keyword())
                .unwrap_or(name)
                .to_owned())
        }
        Value::T => Ok("t".to_owned()),
        other => Err(Error::signal(
            "json-key-format",
            Value::list([other.clone()]),
            format!("Bad JSON object key: {}", super::string::prin1(ctx, other)),
        )),
    }
}

/// Stops an encoding whose walk (charged one unit per node) passes the value budget in
/// bytes: every node adds at least one byte of JSON, so the text would fail the check in
/// [`finish`] anyway. Only tables can make the walk longer than the argument's cached
/// weight (they grow after containers measured them), so only tables check.
fn check_table_walk(ctx: &PrimCtx<'_>) -> Result<()> {
    if ctx.work() > ctx.limits.value_bytes {
        return Err(Error::new(
            ErrorKind::Value,
            format!(
                "JSON text passes the value budget of {} bytes",
                ctx.limits.value_bytes
            ),
        ));
    }
    Ok(())
}

/// `json-encode`'s mapping.
fn encode(ctx: &mut PrimCtx<'_>, value: &Value, depth: usize) -> Result<Json> {
    if depth > JSON_DEPTH {
        return Err(too_deep());
    }
    ctx.charge(1);
    Ok(match value {
        Value::T => Json::Bool(true),
        Value::Nil => Json::Null,
        Value::Sym(s) if *s == well_known::JSON_FALSE => Json::Bool(false),
        Value::Sym(symbol) => {
            let name = ctx.symbols.name(*symbol);
            let name = if symbol.is_keyword() {
                name.strip_prefix(':').unwrap_or(name)
            } else {
                name
            };
            Json::String(name.to_owned())
        }
        Value::Str(text) => Json::String(text.as_str().to_owned()),
        Value::Int(_) | Value::Float(_) | Value::Big(_) => number(ctx, value)?,
        Value::Vector(vector) => {
            let mut items = Vec::with_capacity(vector.items().len());
            for item in vector.items() {
                items.push(encode(ctx, item, depth + 1)?);
            }
            Json::Array(items)
        }
        Value::Hash(table) => {
            check_table_walk(ctx)?;
            let mut map = Map::new();
            for (key, item) in table.entries() {
                let key = encode_key(ctx, &key)?;
                let item = encode(ctx, &item, depth + 1)?;
                map.entry(key).or_insert(item);
            }
            Json::Object(map)
        }
        Value::Cons(_) if is_alist(value) => {
            let mut map = Map::new();
            for pair in value.iter() {
                if let Value::Cons(cell) = pair {
                    let key = encode_key(ctx, cell.car())?;
                    let item = encode(ctx, cell.cdr(), depth + 1)?;
                    map.entry(key).or_insert(item);
                }
            }
            Json::Object(map)
        }
        Value::Cons(_) if is_plist(value) => {
            let mut map = Map::new();
            let items: Vec<&Value> = value.iter().collect();
            for pair in items.chunks(2) {
                if let [key, item] = pair {
                    let key = encode_key(ctx, key)?;
                    let item = encode(ctx, item, depth + 1)?;
                    map.entry(key).or_insert(item);
                }
            }
            Json::Object(map)
        }
        Value::Cons(_) => {
            let mut walk = value.iter();
            let mut items = Vec::new();
            for item in walk.by_ref() {
                items.push(encode(ctx, item, depth + 1)?);
            }
            if !walk.rest().is_nil() {
                return Err(wrong_type(ctx, "listp", value));
            }
            Json::Array(items)
        }
        Value::Closure(_) => return Err(wrong_type(ctx, "json-value-p", value)),
    })
}

/// `json-serialize`'s mapping: lists are objects (alists when the first element is a
/// cons, else plists), arrays are vectors, nil is `{}`.
fn serialize(ctx: &mut PrimCtx<'_>, value: &Value, depth: usize) -> Result<Json> {
    if depth > JSON_DEPTH {
        return Err(too_deep());
    }
    ctx.charge(1);
    Ok(match value {
        Value::T => Json::Bool(true),
        Value::Nil => Json::Object(Map::new()),
        Value::Sym(s) if *s == well_known::NULL => Json::Null,
        Value::Sym(s) if *s == well_known::JSON_FALSE || ctx.symbols.name(*s) == ":false" => {
            Json::Bool(false)
        }
        Value::Str(text) => Json::String(text.as_str().to_owned()),
        Value::Int(_) | Value::Float(_) | Value::Big(_) => number(ctx, value)?,
        Value::Vector(vector) => {
            let mut items = Vec::with_capacity(vector.items().len());
            for item in vector.items() {
                items.push(serialize(ctx, item, depth + 1)?);
            }
            Json::Array(items)
        }
        Value::Hash(table) => {
            check_table_walk(ctx)?;
            let mut map = Map::new();
            for (key, item) in table.entries() {
                let name = match &key {
                    Value::Str(text) => text.as_str().to_owned(),
                    Value::Sym(symbol) => ctx.symbols.name(*symbol).to_owned(),
                    Value::Nil => "nil".to_owned(),
                    Value::T => "t".to_owned(),
                    other => return Err(wrong_type(ctx, "stringp", other)),
                };
                if !map.contains_key(&name) {
                    let item = serialize(ctx, &item, depth + 1)?;
                    map.insert(name, item);
                }
            }
            Json::Object(map)
        }
        Value::Cons(first) => {
            let alist = matches!(first.car(), Value::Cons(_));
            let mut map = Map::new();
            let mut rest = value;
            while let Value::Cons(cell) = rest {
                let (key, item, next) = if alist {
                    let Value::Cons(pair) = cell.car() else {
                        return Err(wrong_type(ctx, "consp", cell.car()));
                    };
                    (pair.car(), pair.cdr(), cell.cdr())
                } else {
                    let Value::Cons(value_cell) = cell.cdr() else {
                        return Err(wrong_type(ctx, "consp", cell.cdr()));
                    };
                    (cell.car(), value_cell.car(), value_cell.cdr())
                };
                let Value::Sym(symbol) = key else {
                    return Err(wrong_type(ctx, "symbolp", key));
                };
                let name = ctx.symbols.name(*symbol);
                let name = if alist {
                    name
                } else {
                    name.strip_prefix(':')
                        .filter(|n| !n.is_empty())
                        .unwrap_or(name)
                };
                let name = name.to_owned();
                if !map.contains_key(&name) {
                    let item = serialize(ctx, item, depth + 1)?;
                    map.insert(name, item);
                }
                rest = next;
            }
            if !rest.is_nil() {
                return Err(wrong_type(ctx, "listp", value));
            }
            Json::Object(map)
        }
        other => return Err(wrong_type(ctx, "json-value-p", other)),
    })
}

fn finish(ctx: &mut PrimCtx<'_>, json: &Json) -> Result<Value> {
    let text = serde_json::to_string(json)
        .map_err(|e| Error::script(format!("JSON encoding failed: {e}")))?;
    if u64::try_from(text.len()).unwrap_or(u64::MAX) > ctx.limits.value_bytes {
        return Err(Error::new(
            ErrorKind::Value,
            format!(
                "Guest value exceeds its value byte budget of {}",
                ctx.limits.value_bytes
            ),
        ));
    }
    Ok(new_string(ctx, text))
}

/// `(json-encode OBJECT)`: JSON text by json.el's rules (alists and keyword plists are
/// objects, other lists and vectors arrays, nil `null`, `:json-false` `false`, symbols
/// their names).
pub(super) fn json_encode(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let json = encode(ctx, arg(args, 0), 0)?;
    finish(ctx, &json)
}

/// `(json-serialize OBJECT &rest ARGS)`: JSON text by the native serializer's rules.
pub(super) fn json_serialize(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let json = serialize(ctx, arg(args, 0), 0)?;
    finish(ctx, &json)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ObjectType {
    Plist,
    Alist,
    /// Emacs's default: an `equal` table with string keys, sized by the member count.
    HashTable,
}

struct Options {
    object: ObjectType,
    list_arrays: bool,
    null: Value,
    false_value: Value,
}

fn options(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Options> {
    let mut options = Options {
        object: ObjectType::HashTable,
        list_arrays: false,
        null: Value::Sym(well_known::NULL),
        false_value: Value::Sym(ctx.symbols.intern(":false")),
    };
    for pair in args.chunks(2) {
        let [Value::Sym(key), value] = pair else {
            return Err(Error::script(
                "'json-parse-string': expects :keyword value pairs after the string",
            ));
        };
        let key = ctx.symbols.name(*key).to_owned();
        let value_name = match value {
            Value::Sym(symbol) => ctx.symbols.name(*symbol).to_owned(),
            _ => String::new(),
        };
        match key.as_str() {
            ":object-type" => {
                options.object = match value_name.as_str() {
                    "plist" => ObjectType::Plist,
                    "alist" => ObjectType::Alist,
                    "hash-table" => ObjectType::HashTable,
                    _ => {
                        return Err(Error::script(
                            "'json-parse-string': :object-type must be 'hash-table, 'plist or 'alist",
                        ));
                    }
                }
            }
            ":array-type" => {
                options.list_arrays = match value_name.as_str() {
                    "list" => true,
                    "array" => false,
                    _ => {
                        return Err(Error::script(
                            "'json-parse-string': :array-type must be 'array or 'list",
                        ));
                    }
                }
            }
            ":null-object" => options.null = value.clone(),
            ":false-object" => options.false_value = value.clone(),
            other => {
                return Err(Error::script(format!(
                    "'json-parse-string': unknown keyword argument {other}"
                )));
            }
        }
    }
    Ok(options)
}

/// The weight of the parse result (an upper bound: lists, the heavier array form).
fn weight_of(json: &Json, depth: usize) -> Result<Weight> {
    if depth > JSON_DEPTH {
        return Err(too_deep());
    }
    Ok(match json {
        Json::Null | Json::Bool(_) => Weight::leaf(12),
        Json::Number(n) => Weight::leaf(n.to_string().len() as u64),
        Json::String(s) => Weight::leaf(s.len() as u64),
        Json::Array(items) => {
            let mut total = Weight {
                bytes: items.len() as u64,
                nodes: items.len() as u64 + 1,
                has_closure: false,
                has_table: false,
            };
            for item in items {
                total = total.plus(weight_of(item, depth + 1)?);
            }
            total
        }
        Json::Object(map) => {
            let mut total = Weight {
                bytes: 2 * map.len() as u64,
                nodes: 3 * map.len() as u64 + 1,
                has_closure: false,
                has_table: false,
            };
            for (key, item) in map {
                total = total.plus(Weight::leaf(key.len() as u64 + 1));
                total = total.plus(weight_of(item, depth + 1)?);
            }
            total
        }
    })
}

fn parse_value(ctx: &mut PrimCtx<'_>, json: &Json, options: &Options) -> Result<Value> {
    Ok(match json {
        Json::Null => options.null.clone(),
        Json::Bool(true) => Value::T,
        Json::Bool(false) => options.false_value.clone(),
        Json::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::Int(i)
            } else if let Some(u) = n.as_u64() {
                Value::integer(num_bigint::BigInt::from(u))
            } else {
                Value::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Json::String(s) => Value::string(s.as_str()),
        Json::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.push(parse_value(ctx, item, options)?);
            }
            if options.list_arrays {
                Value::list(out)
            } else {
                Value::vector(out)
            }
        }
        Json::Object(map) if options.object == ObjectType::HashTable => {
            // The table itself and its slots are charged where the caller measures the
            // result (`heap::of` counts a table shallowly); its keys and values here.
            let table =
                crate::value::HashTable::new(crate::value::table::Test::Equal, map.len() as u64);
            for (key, item) in map {
                let item = parse_value(ctx, item, options)?;
                ctx.alloc(heap::string(key.len() as u64).saturating_add(heap::of(&item)));
                table.put(Value::string(key.as_str()), item);
            }
            Value::Hash(std::sync::Arc::new(table))
        }
        Json::Object(map) => {
            let mut out = Vec::with_capacity(map.len() * 2);
            for (key, item) in map {
                let item = parse_value(ctx, item, options)?;
                match options.object {
                    ObjectType::Plist => {
                        out.push(Value::Sym(ctx.symbols.try_intern(&format!(":{key}"))?));
                        out.push(item);
                    }
                    ObjectType::Alist | ObjectType::HashTable => {
                        let symbol = Value::Sym(ctx.symbols.try_intern(key)?);
                        out.push(Value::cons(symbol, item));
                    }
                }
            }
            Value::list(out)
        }
    })
}

/// `(json-parse-string STRING &rest ARGS)`
pub(super) fn json_parse_string(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let text = string_arg(ctx, arg(args, 0))?.to_owned();
    let options = options(ctx, args.get(1..).unwrap_or_default())?;
    ctx.charge(text_units(text.len()).saturating_mul(2));
    let json: Json = serde_json::from_str(&text).map_err(|error| {
        let symbol = if error.is_eof() {
            "json-end-of-file"
        } else if error.to_string().starts_with("trailing") {
            "json-trailing-content"
        } else {
            "json-parse-error"
        };
        let message = error.to_string();
        Error::signal(
            symbol,
            Value::list([Value::string(message.as_str())]),
            message,
        )
    })?;
    let weight = weight_of(&json, 0)?;
    check_weight(weight, ctx.limits)?;
    let value = parse_value(ctx, &json, &options)?;
    ctx.alloc(heap::of(&value));
    Ok(value)
}
