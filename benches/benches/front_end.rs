//! Front-end throughput: reading (lex, depth pre-scan, parse) and the whole static pipeline
//! (read, preflight, expansion, lowering, verification) on a realistic ~20 KB script, in
//! bytes of script text per second.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ptc_compiler::internals::read_script;
use ptc_compiler::{Roster, compile};
use ptc_vm::Limits;
use std::hint::black_box;

/// A realistic script near the default 20 000-byte input budget: many small definitions
/// and orchestration forms, comments and strings.
fn script() -> String {
    let unit = r#"
;; Summarise the files that mention a symbol, grouped by directory.
(defun summarise-N (pattern)
  (let* ((hits (split-string (Grep :pattern pattern :glob "*.rs") "\n" t))
         (files nil))
    (dolist (hit hits)
      (let ((file (car (split-string hit ":"))))
        (unless (member file files)
          (push file files))))
    (list :pattern pattern :count (length files)
          :dirs (mapcar (lambda (f) (file-name-directory f)) (take 5 files)))))
"#;
    let mut text = String::new();
    let mut n = 0;
    while text.len() + unit.len() < 19_000 {
        text.push_str(&unit.replace("-N", &format!("-{n}")));
        n += 1;
    }
    text.push_str("(summarise-0 \"forbid\")\n");
    text
}

fn front_end(c: &mut Criterion) {
    let source = script();
    let limits = Limits::default();
    let roster = Roster::new().tool("Grep").tool("Read");
    compile(&source, &roster, &limits).expect("the benchmark script compiles");
    let mut group = c.benchmark_group("front_end");
    group.throughput(Throughput::Bytes(source.len() as u64));
    group.bench_with_input(BenchmarkId::new("read", source.len()), &source, |b, s| {
        b.iter(|| black_box(read_script(s, &limits).is_ok()));
    });
    group.bench_with_input(
        BenchmarkId::new("compile", source.len()),
        &source,
        |b, s| {
            b.iter(|| black_box(compile(s, &roster, &limits).is_ok()));
        },
    );
    group.finish();
}

criterion_group!(benches, front_end);
criterion_main!(benches);
