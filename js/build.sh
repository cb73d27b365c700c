#!/usr/bin/env bash
# Builds js/pkg: the ptc-js crate for wasm32-unknown-unknown (profile `wasm`), then
# wasm-bindgen's `web` target (an ES module that loads the .wasm by fetch in browsers and
# workers; index.js hands it the bytes in Node). wasm-bindgen-cli must be the crate's
# version (Cargo.toml pins both; .ci/js.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(grep -m1 '^wasm-bindgen = ' Cargo.toml | sed 's/.*"=\{0,1\}\([0-9.]*\)".*/\1/')
if ! wasm-bindgen --version 2>/dev/null | grep -q " $version\$"; then
    echo "js/build.sh: wasm-bindgen-cli $version is needed (cargo install wasm-bindgen-cli --version $version)" >&2
    exit 1
fi
cargo build --locked --profile wasm --target wasm32-unknown-unknown -p ptc-js
wasm-bindgen --target web --out-dir js/pkg --no-typescript \
    target/wasm32-unknown-unknown/wasm/ptc_js.wasm
ls -l js/pkg/ptc_js_bg.wasm
