#!/usr/bin/env bash
# The `ptc serve` example clients (examples/serve_client.py, examples/serve_client.mjs),
# each run against the built binary and asserting on the outcomes. They need only a
# standard python3 (>= 3.8) and node (>= 18); when missing they are installed from the
# distribution's packages (versions pinned by its release). Without CI set, a missing
# interpreter skips its client loudly; with CI set it fails.
set -euo pipefail
cd "$(dirname "$0")/.."

need() { # need PROGRAM PACKAGE
    if ! command -v "$1" >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "== apt-get install $2"
        apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
    fi
    if ! command -v "$1" >/dev/null 2>&1; then
        if [ -n "${CI:-}" ]; then
            echo "envelope.sh: $1 is required in CI and could not be installed" >&2
            exit 1
        fi
        echo "envelope.sh: SKIPPING the $1 client: $1 is not installed" >&2
        return 1
    fi
}

echo "== cargo build -p ptc-cli (for the serve clients)"
cargo build -p ptc-cli --locked --quiet
ptc="$PWD/target/debug/ptc"

if need python3 python3; then
    python3 -c 'import sys; assert sys.version_info >= (3, 8), sys.version'
    echo "== examples/serve_client.py ($(python3 --version))"
    timeout 120 python3 examples/serve_client.py "$ptc"
fi
if need node nodejs; then
    node -e 'if (+process.versions.node.split(".")[0] < 18) { console.error(process.version); process.exit(1) }'
    echo "== examples/serve_client.mjs (node $(node --version))"
    timeout 120 node examples/serve_client.mjs "$ptc"
fi
