//! Test support: a tiny reader for argument literals and a caller for table primitives.

use super::*;
// ---------------------------------------------------------------------------------------
// A tiny reader for test data: lists, dotted pairs, vectors, strings, numbers, symbols, 'x.

pub(crate) struct Reader<'a> {
    text: &'a [u8],
    at: usize,
    symbols: &'a mut Symbols,
}

impl Reader<'_> {
    fn skip_space(&mut self) {
        while self.at < self.text.len() && self.text[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.text.get(self.at).copied()
    }

    fn read(&mut self) -> Value {
        match self.peek().expect("unexpected end of test datum") {
            b'(' => {
                self.at += 1;
                let mut items = Vec::new();
                let mut tail = Value::Nil;
                loop {
                    match self.peek().expect("unclosed list") {
                        b')' => break,
                        b'.' if self.text.get(self.at + 1) == Some(&b' ') => {
                            self.at += 1;
                            tail = self.read();
                        }
                        _ => items.push(self.read()),
                    }
                }
                self.at += 1;
                Value::list_with_tail(items, tail)
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                while self.peek().expect("unclosed vector") != b']' {
                    items.push(self.read());
                }
                self.at += 1;
                Value::vector(items)
            }
            b'\'' => {
                self.at += 1;
                let quoted = self.read();
                Value::list([Value::Sym(well_known::QUOTE), quoted])
            }
            b'"' => {
                self.at += 1;
                let mut out = Vec::new();
                while self.text[self.at] != b'"' {
                    if self.text[self.at] == b'\\' {
                        self.at += 1;
                    }
                    out.push(self.text[self.at]);
                    self.at += 1;
                }
                self.at += 1;
                Value::string(String::from_utf8(out).expect("utf-8"))
            }
            _ => {
                let start = self.at;
                while self.at < self.text.len()
                    && !self.text[self.at].is_ascii_whitespace()
                    && !b"()[]\"".contains(&self.text[self.at])
                {
                    self.at += 1;
                }
                let token = std::str::from_utf8(&self.text[start..self.at]).expect("utf-8");
                atom(token, self.symbols)
            }
        }
    }
}

pub(crate) fn atom(token: &str, symbols: &mut Symbols) -> Value {
    match token {
        "nil" => return Value::Nil,
        "t" => return Value::T,
        "1.0e+INF" => return Value::Float(f64::INFINITY),
        "-1.0e+INF" => return Value::Float(f64::NEG_INFINITY),
        "0.0e+NaN" => return Value::Float(f64::NAN),
        _ => {}
    }
    let digits = token.strip_prefix('-').unwrap_or(token);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return Value::integer(token.parse::<BigInt>().expect("integer"));
    }
    if token.bytes().any(|b| b.is_ascii_digit())
        && let Ok(f) = token.parse::<f64>()
    {
        return Value::Float(f);
    }
    Value::Sym(symbols.intern(token))
}

pub(crate) fn read(text: &str, symbols: &mut Symbols) -> Value {
    Reader {
        text: text.as_bytes(),
        at: 0,
        symbols,
    }
    .read()
}

pub(crate) fn new_symbols() -> Symbols {
    Symbols::new(Arc::new(Interner::new()))
}

// ---------------------------------------------------------------------------------------
// Calling primitives.

pub(crate) struct Outcome {
    pub(crate) result: Result<String, (ErrorKind, String)>,
    pub(crate) work: u64,
    pub(crate) allocated: u64,
}

pub(crate) fn call_with(limits: &Limits, name: &str, args: &str) -> Outcome {
    let mut symbols = new_symbols();
    let args = read(args, &mut symbols)
        .list_to_vec()
        .expect("arguments are a list");
    let index = lookup(name).unwrap_or_else(|| panic!("no primitive {name}"));
    let primitive = &PRIMITIVES[index];
    assert!(primitive.accepts(args.len()), "arity of {name}");
    let mut ctx = PrimCtx::new(limits, &mut symbols);
    let result = (primitive.run)(&mut ctx, &args);
    let (work, allocated) = (ctx.work(), ctx.allocated());
    Outcome {
        result: result
            .map(|v| print::to_string(&v, Style::Prin1, &symbols))
            .map_err(|e| (e.kind(), e.message().to_owned())),
        work,
        allocated,
    }
}

/// `(NAME . ARGS)` printed, or a panic naming the error.
pub(crate) fn ok(name: &str, args: &str) -> String {
    match call_with(&Limits::default(), name, args).result {
        Ok(text) => text,
        Err((kind, message)) => panic!("({name} {args}) failed: {kind}: {message}"),
    }
}

/// The message of a `script` error from `(NAME . ARGS)`.
pub(crate) fn err(name: &str, args: &str) -> String {
    match call_with(&Limits::default(), name, args).result {
        Ok(text) => panic!("({name} {args}) returned {text}"),
        Err((kind, message)) => {
            assert_eq!(kind, ErrorKind::Script, "{message}");
            message
        }
    }
}

pub(crate) fn err_with(limits: &Limits, name: &str, args: &str) -> (ErrorKind, String) {
    match call_with(limits, name, args).result {
        Ok(text) => panic!("({name} {args}) returned {text}"),
        Err(e) => e,
    }
}
