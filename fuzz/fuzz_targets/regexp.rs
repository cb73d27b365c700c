//! Guest regexps: pattern bytes, `0xff`, haystack bytes. `check_subset` must give a typed
//! answer; `string-match-p`, `string-search` and `split-string` run the pattern (or text)
//! through the primitives. Oracles: no panic; errors of kind `atomic-work` or `script`;
//! a match index lies inside the haystack (in characters); an accepted subset pattern
//! compiles.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptc_vm::{ErrorKind, Interner, Symbols, Value};
use std::sync::Arc;

fuzz_target!(|data: &[u8]| {
    ptc_fuzz::set_input(data);
    let (pattern, haystack) = ptc_fuzz::split_script(data);
    let haystack = String::from_utf8_lossy(haystack).into_owned();
    let limits = ptc_fuzz::small_limits();
    let subset = ptc_vm::regexp::check_subset(&pattern, &limits);
    if let Err(error) = &subset {
        assert_eq!(error.kind(), ErrorKind::AtomicWork, "{error:?}");
    }
    let mut symbols = Symbols::new(Arc::new(Interner::new()));
    let args = [
        Value::string(pattern.clone()),
        Value::string(haystack.clone()),
    ];
    match ptc_fuzz::call_primitive("string-match-p", &args, &limits, &mut symbols) {
        Ok(Value::Int(at)) => {
            assert!(
                at >= 0 && (at as usize) <= haystack.chars().count(),
                "match index {at} outside"
            );
        }
        Ok(Value::Nil) => {}
        Ok(other) => panic!("string-match-p returned {other:?}"),
        Err(error) => {
            assert!(
                matches!(error.kind(), ErrorKind::AtomicWork | ErrorKind::Script),
                "{error:?}"
            );
            assert!(
                subset.is_err() || error.kind() == ErrorKind::AtomicWork,
                "subset ok but {error:?}"
            );
        }
    }
    let _ = ptc_fuzz::call_primitive("string-search", &args, &limits, &mut symbols);
    let split = [Value::string(haystack), Value::string(pattern)];
    let _ = ptc_fuzz::call_primitive("split-string", &split, &limits, &mut symbols);
});
