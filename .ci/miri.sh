#!/usr/bin/env bash
# Miri over the VM's tests (issue 16): the register window of the dispatch loop
# (vm/src/machine/regs.rs) is the crate's one `unsafe` module, and its debug assertions and
# pointer use are checked by Miri on the machine's unit tests and on the machine tests that
# run whole programs through the dispatch loop (calls, returns, closures, the general path)
# within minutes under Miri. The
# property tests of the primitives (prims_data, hostile_prims) touch no `unsafe` and would
# take far longer under Miri, so they are left to the ordinary run.
# Runs only when a nightly toolchain with the miri component is present; otherwise it
# says so loudly and succeeds (Miri is an extra check, never a requirement of CI).
set -euo pipefail
if cargo +nightly miri --version >/dev/null 2>&1; then
    echo "== miri: $(cargo +nightly miri --version)"
    cargo +nightly miri setup >/dev/null
    # Measured under Miri on this machine: the window and frame-stack unit tests and the
    # closure and fuel tests of tests/machine.rs passed within two minutes; the deep-recursion and
    # the million-step loop tests run for many minutes, so they are left to the ordinary run.
    cargo +nightly miri test -p ptc-vm --lib machine
    cargo +nightly miri test -p ptc-vm --test machine -- closures fuel_monotonicity
else
    echo "=================================================================="
    echo "== miri SKIPPED: no nightly toolchain with miri"
    echo "== (rustup toolchain install nightly --component miri to run it)"
    echo "=================================================================="
fi
