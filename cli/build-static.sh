#!/usr/bin/env bash
# Builds the `ptc` binary as a static position-independent executable (static-pie): glibc
# and libgcc linked in, no shared libraries to load or symbols to look up at start, ASLR
# and full RELRO kept. A trivial `ptc run` starts in about a third fewer instructions than
# the dynamically linked build (benches/README.md, "Start-up": the dynamic loader's symbol
# lookups and the loading of libc, libm and libgcc_s go away). This is the build to ship.
#
# The one thing static glibc cannot do safely is load NSS modules (getaddrinfo): the static
# build turns on the `hickory-dns` feature, so `ptc mcp` resolves its HTTP upstreams' host
# names with hickory (/etc/hosts and /etc/resolv.conf) instead. ptc uses no other NSS call.
#
# Usage: cli/build-static.sh [extra cargo build arguments]; prints the binary's path.
# Needs a *-linux-gnu host with glibc's static libraries (Debian: libc6-dev).
set -euo pipefail
cd "$(dirname "$0")/.."
host=$(rustc -vV | sed -n 's/^host: //p')
case "$host" in
  *-linux-gnu) ;;
  *) echo "cli/build-static.sh builds for *-linux-gnu hosts; on $host use cargo build --release" >&2
     exit 2 ;;
esac
# An explicit --target keeps RUSTFLAGS off build scripts and proc-macros, which cannot be
# linked statically.
RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static" \
  cargo build --release -p ptc-cli --bin ptc --features hickory-dns --target "$host" "$@"
echo "target/$host/release/ptc"
