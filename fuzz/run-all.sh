#!/usr/bin/env bash
# Build every fuzz target, then run each for SECONDS with JOBS targets at once.
#
#   fuzz/run-all.sh SECONDS [JOBS]      (JOBS defaults to 2)
#
# Runs under `nice -n 19` with the flags of fuzz/README.md. Each target mutates its own
# corpus/TARGET (git-ignored, kept between runs) seeded from seeds/TARGET; crashes go to
# artifacts/TARGET/. Logs are kept in fuzz/logs/ (git-ignored): build.log and TARGET.log.
# For every target the script prints libFuzzer's `Done N runs in S second(s)` line, or the
# finding (the crash lines and the artifact's path). Exit status: 0 when every target ran
# clean, 1 when any target stopped on a finding or failed to start, 2 on a usage error.
set -uo pipefail

usage() {
    echo "usage: fuzz/run-all.sh SECONDS [JOBS]" >&2
    exit 2
}
[[ $# -ge 1 && $# -le 2 ]] || usage
seconds=$1
jobs=${2:-2}
[[ $seconds =~ ^[1-9][0-9]*$ && $jobs =~ ^[1-9][0-9]*$ ]] || usage

cd "$(dirname "$0")" || exit 2
mkdir -p logs

echo "== build (logs/build.log)"
if ! nice -n 19 cargo +nightly fuzz build >logs/build.log 2>&1; then
    tail -n 40 logs/build.log
    echo "fuzz build failed"
    exit 1
fi
mapfile -t targets < <(cargo +nightly fuzz list)
echo "== ${#targets[@]} targets, ${seconds} s each, ${jobs} at a time ($(date -u +%H:%M:%S) UTC)"

# Prints one summary line (or the finding) for TARGET from its log; returns 1 on a finding.
summarize() {
    local target=$1 status=$2 log="logs/$1.log" done_line
    done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1)
    if [[ $status -eq 0 && -n $done_line ]]; then
        echo "$target: $done_line"
        return 0
    fi
    echo "$target: FINDING or failure (exit $status), from logs/$target.log:"
    grep -E '^==[0-9]+==|ERROR: libFuzzer|panicked at|^SUMMARY|Test unit written to|^Running:|^error' \
        "$log" | head -n 20 | sed 's/^/    /'
    if ! grep -qE 'ERROR: libFuzzer|panicked at|^SUMMARY|Test unit written to' "$log"; then
        tail -n 20 "$log" | sed 's/^/    /'
    fi
    return 1
}

run_one() {
    local target=$1
    mkdir -p "corpus/$target" "artifacts/$target"
    nice -n 19 cargo +nightly fuzz run "$target" "corpus/$target" "seeds/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=8192 \
        -print_final_stats=1 -artifact_prefix="artifacts/$target/" >"logs/$target.log" 2>&1
}

declare -A pid_target=()
failed=0
reap() {
    local pid status
    wait -n -p pid "${!pid_target[@]}"
    status=$?
    summarize "${pid_target[$pid]}" "$status" || failed=1
    unset "pid_target[$pid]"
}

for target in "${targets[@]}"; do
    while [[ ${#pid_target[@]} -ge $jobs ]]; do reap; done
    run_one "$target" &
    pid_target[$!]=$target
done
while [[ ${#pid_target[@]} -gt 0 ]]; do reap; done

echo "== finished $(date -u +%H:%M:%S) UTC"
exit "$failed"
