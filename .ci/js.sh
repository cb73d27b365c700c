#!/usr/bin/env bash
# The JavaScript package (js/, issue 39): installs wasm-bindgen-cli at the version the
# wasm-bindgen crate is pinned to (built from source by cargo, nothing prebuilt), builds the
# WebAssembly core (js/build.sh), then runs Node's test runner over the API and the hostile
# cases against that build, the MCP adapter against the real SDK, the AI SDK adapter
# against the real `ai` package (its mock model), and the page + module-worker test in
# headless Chromium (Debian's chromium, installed here when missing; playwright-core drives
# it, no browser download).
# Needs node >= 20; without it the check is skipped loudly, or fails when CI is set.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v node >/dev/null 2>&1 || ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; then
    if [ -n "${CI:-}" ]; then
        echo "js.sh: FAIL: node >= 20 is required when CI is set" >&2
        exit 1
    fi
    echo "js.sh: SKIPPED: no node >= 20; the JavaScript package was NOT tested" >&2
    exit 0
fi
version=$(grep -m1 '^wasm-bindgen = ' Cargo.toml | sed 's/.*"=\{0,1\}\([0-9.]*\)".*/\1/')
rustup target add wasm32-unknown-unknown >/dev/null
if ! wasm-bindgen --version 2>/dev/null | grep -q " $version\$"; then
    echo "== js: cargo install wasm-bindgen-cli $version"
    # Not --locked: its lock file names a webpki-roots release the registry may not carry.
    cargo install wasm-bindgen-cli --version "$version" --quiet
fi
echo "== js: js/build.sh"
bash js/build.sh
echo "== js: .wasm $(wc -c < js/pkg/ptc_js_bg.wasm) bytes, $(gzip -9 -c js/pkg/ptc_js_bg.wasm | wc -c) gzipped"
# The MCP adapter's test: the official TypeScript SDK and the reference server, pinned.
TS_MCP=@modelcontextprotocol/sdk@1.32.2
EVERYTHING=@modelcontextprotocol/server-everything@2026.8.31
mcp_cache="${PTC_MCP_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ptc-mcp-e2e}/js-mcp"
if ! grep -q '"version": "1.32.2"' "$mcp_cache/node_modules/@modelcontextprotocol/sdk/package.json" 2>/dev/null \
    || [ ! -x "$mcp_cache/node_modules/.bin/mcp-server-everything" ]; then
    echo "== js: npm install $TS_MCP $EVERYTHING"
    mkdir -p "$mcp_cache"
    npm install --silent --no-audit --no-fund --prefix "$mcp_cache" "$TS_MCP" "$EVERYTHING"
fi
# The AI SDK adapter's test and the browser test: `ai`, `zod` and playwright-core, pinned,
# in a cache project that js/node_modules links to (the adapter imports "ai" by name).
DEV_PINS=(ai@7.0.185 zod@4.6.7 playwright-core@1.65.2)
dev_cache="${PTC_MCP_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ptc-mcp-e2e}/js-dev"
for pin in "${DEV_PINS[@]}"; do
    if ! grep -q "\"version\": \"${pin##*@}\"" "$dev_cache/node_modules/${pin%@*}/package.json" 2>/dev/null; then
        echo "== js: npm install ${DEV_PINS[*]}"
        mkdir -p "$dev_cache"
        [ -f "$dev_cache/package.json" ] || echo '{"private": true}' > "$dev_cache/package.json"
        npm install --silent --no-audit --no-fund --prefix "$dev_cache" "${DEV_PINS[@]}"
        break
    fi
done
if [ -e js/node_modules ] && [ ! -L js/node_modules ]; then
    echo "js.sh: FAIL: js/node_modules is a directory; remove it (this script links it to $dev_cache)" >&2
    exit 1
fi
ln -sfn "$dev_cache/node_modules" js/node_modules
if [ ! -x /usr/bin/chromium ]; then
    echo "== js: apt-get install chromium"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
echo "== js: node --test js/test/"
(cd js && PTC_JS_REQUIRE_ALL=1 PTC_JS_MCP_MODULES="$mcp_cache/node_modules" node --test test/)
echo "== js: npm pack, installed into a scratch project, the README's example"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
(cd js && npm pack --silent --pack-destination "$scratch" >/dev/null)
(cd "$scratch" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund ./ptc-engine-0.1.0.tgz \
    && cp "$OLDPWD/js/examples/readme.mjs" . && node readme.mjs)
