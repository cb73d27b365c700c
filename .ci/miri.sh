#!/usr/bin/env bash
# Miri over the VM's tests (issue 16): the register window of the dispatch loop
# (vm/src/machine/regs.rs) is the crate's one `unsafe` module, and its debug assertions and
# pointer use are checked by Miri on the unit tests and the machine tests (which run whole
# programs through the dispatch loop: calls, returns, closures, the general path). The
# property tests of the primitives (prims_data, hostile_prims) touch no `unsafe` and would
# take far longer under Miri, so they are left to the ordinary run.
# Runs only when a nightly toolchain with the miri component is present; otherwise it
# says so loudly and succeeds (Miri is an extra check, never a requirement of CI).
set -euo pipefail
if cargo +nightly miri --version >/dev/null 2>&1; then
    echo "== miri: $(cargo +nightly miri --version)"
    cargo +nightly miri setup >/dev/null
    cargo +nightly miri test -p ptc-vm --lib --test machine
else
    echo "=================================================================="
    echo "== miri SKIPPED: no nightly toolchain with miri"
    echo "== (rustup toolchain install nightly --component miri to run it)"
    echo "=================================================================="
fi
