#!/usr/bin/env bash
# Builds the `ptc` and `ptc-mcp` binaries as static position-independent executables
# (static-pie): glibc and libgcc linked in, no shared libraries to load or symbols to look
# up at start, ASLR and full RELRO kept. A trivial `ptc run` starts in about a third fewer
# instructions than the dynamically linked build (benches/README.md, "Start-up": the
# dynamic loader's symbol lookups and the loading of libc, libm and libgcc_s go away). This
# is the build to ship; keep the two binaries side by side (`ptc mcp` runs `ptc-mcp`).
#
# The `dist` profile (the workspace Cargo.toml) is the release profile with fat LTO and one
# codegen unit: a smaller binary that touches and relocates fewer pages at start, linked in
# minutes rather than seconds.
#
# Relative relocations are packed (`-z pack-relative-relocs`, DT_RELR: glibc 2.36 and a
# linker that has it, as the rust-lld Rust links with by default and GNU ld 2.38 do; a
# trial link decides): the relocation table shrinks from about half a megabyte to a few
# kilobytes, and the start-up reads that much less.
#
# Start-up functions first: the functions a short run executes (cli/startup.order, made by
# benches/startup-order.sh) are placed together at the front of `.text`
# (`--symbol-ordering-file`, rust-lld's and gold's; a trial link decides), so the kernel maps
# them in a few 64 KiB windows instead of faulting on windows all over the text (a trivial
# run: 37 text faults -> 11). cli/build.rs hands it to the `ptc` link alone; the compile
# flags, and with them the symbol names, are the ones the file was made with.
#
# The one thing static glibc cannot do safely is load NSS modules (getaddrinfo): the static
# build turns on the `hickory-dns` feature, so `ptc mcp` resolves its HTTP upstreams' host
# names with hickory (/etc/hosts and /etc/resolv.conf) instead, and so does the OTLP
# exporter. ptc uses no other NSS call. The `otel` feature builds the OpenTelemetry exporter
# in (off unless the OTEL_* variables ask for it; spec/reference/observability.md).
#
# Usage: cli/build-static.sh [extra cargo build arguments]; prints the binaries' paths.
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
flags="${RUSTFLAGS:-} -C target-feature=+crt-static"
relr="-C link-arg=-Wl,-z,pack-relative-relocs"
probe=$(mktemp -d)
if echo 'fn main() {}' | rustc --edition 2021 $relr -o "$probe/relr" - >/dev/null 2>&1; then
  flags="$flags $relr"
fi
order=""
if echo 'fn main() {}' | rustc --edition 2021 -C link-arg=-Wl,--symbol-ordering-file=/dev/null \
  -o "$probe/order" - >/dev/null 2>&1; then
  order="$PWD/cli/startup.order"
fi
rm -rf "$probe"
# cli/build.rs passes PTC_STARTUP_ORDER to the `ptc` link.
RUSTFLAGS="$flags" PTC_STARTUP_ORDER="$order" \
  cargo build --profile dist -p ptc-cli --bin ptc --bin ptc-mcp --features hickory-dns,otel --target "$host" "$@"
dir="${CARGO_TARGET_DIR:-target}/$host/dist"
if [ -n "$order" ] && command -v nm >/dev/null; then
  listed=$(grep -vc '^#' cli/startup.order || true)
  found=$(nm "$dir/ptc" | awk '{print $NF}' | sort -u \
    | comm -12 - <(grep -v '^#' cli/startup.order | sort -u) | wc -l)
  echo "cli/startup.order: $found of its $listed start-up functions are in this build" >&2
  if [ $((found * 10)) -lt $((listed * 9)) ]; then
    echo "cli/build-static.sh: fewer than 90 % found (a toolchain or dependency update, or a" \
      "changed signature, renamed them); run benches/startup-order.sh and build again" >&2
  fi
fi
echo "$dir/ptc"
echo "$dir/ptc-mcp"
