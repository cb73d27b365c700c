"""Interleaved wall-clock timing of `ptc run` built without and with the `otel` feature, no
OTEL_* variable set (exporting off): issue 43's "no measurable cost when off"
(spec/reference/observability.md has the numbers).

    python3 benches/otel_off.py PLAIN_PTC OTEL_PTC [ROUNDS]

Each round runs both binaries once per workload, in alternating order, and the medians and
means of the per-binary times are printed.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

WORKLOADS = {
    "one stub call": ["-e", "(demo.t :x 1)", "--stub", "demo.t=args", "--no-builtin-tools"],
    "200k steps + 50 calls": [
        "-e", "(progn (dotimes (i 200000) i) (mapcar (lambda (i) (demo.t :i i)) (number-sequence 1 50)))",
        "--stub", "demo.t=args", "--no-builtin-tools",
    ],
}


def once(binary: str, args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([binary, "run", *args], env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def main() -> None:
    plain, otel = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    for name, args in WORKLOADS.items():
        times: dict[str, list[float]] = {plain: [], otel: []}
        for i in range(rounds):
            order = (plain, otel) if i % 2 == 0 else (otel, plain)
            for binary in order:
                times[binary].append(once(binary, args, env))
        for label, binary in (("without otel", plain), ("with otel", otel)):
            t = times[binary]
            print(f"{name:24} {label:13} median {statistics.median(t) * 1000:7.2f} ms"
                  f"  mean {statistics.mean(t) * 1000:7.2f} ms  (n={len(t)})")


if __name__ == "__main__":
    main()
