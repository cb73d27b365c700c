#!/usr/bin/env python3
"""Writes the README results table from one criterion run.

Reads target/criterion/<group>/<engine>/new/estimates.json (median point estimate and its
95% confidence interval) and prints a Markdown table per group with ptc/peer ratios, then
the issue #5 target checks. Usage: python3 benches/report.py [target/criterion] > table.md
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")
ORDER = ["fib25", "loop_sum_1e6", "list_10k", "strings_100k", "host_read_x100",
         "cold_tiny", "loop_limits", "shared_list", "fanout256"]
PEERS = ["lua54", "luau", "rhai", "starlark"]


def load():
    results = {}
    for estimates in ROOT.glob("**/new/estimates.json"):
        case = estimates.parent.parent.relative_to(ROOT).parts
        group, engine = case[0], "/".join(case[1:])
        median = json.loads(estimates.read_text())["median"]
        ci = median["confidence_interval"]
        results.setdefault(group, {})[engine] = (
            median["point_estimate"], ci["lower_bound"], ci["upper_bound"])
    return results


def fmt(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def ptc_of(group, engine, cases):
    """The ptc case a peer case is compared with."""
    if group == "cold_tiny":
        return cases.get("ptc-" + engine.rsplit("-", 1)[-1])
    if group == "loop_limits":
        limited = not engine.endswith("-off")
        return cases.get("ptc-metered" if limited else "ptc-unmetered")
    return cases.get("ptc")


def main():
    results = load()
    groups = [g for g in ORDER if g in results] + sorted(set(results) - set(ORDER))
    print("| workload | engine | median | 95% CI of median | ptc time / engine time (> 1: ptc slower) |")
    print("|---|---|---|---|---|")
    for group in groups:
        cases = results[group]
        def order(engine):
            size = engine.rsplit("/", 1)[-1]
            return (not engine.startswith("ptc"), int(size) if size.isdigit() else 0, engine)

        for engine in sorted(cases, key=order):
            median, low, high = cases[engine]
            ratio = ""
            base = ptc_of(group, engine, cases)
            if not engine.startswith("ptc") and base and group != "fanout256":
                ratio = f"{base[0] / median:.2f}"
            print(f"| {group} | {engine} | {fmt(median)} | {fmt(low)} – {fmt(high)} | {ratio} |")
    print()
    print(targets(results))


def targets(results):
    lines = ["| target (issue #5) | measured | verdict |", "|---|---|---|"]

    def get(group, engine):
        return results.get(group, {}).get(engine, (None,))[0]

    for group in ("fib25", "loop_sum_1e6"):
        ptc = get(group, "ptc")
        for peer, bound in (("lua54", 1.0), ("rhai", 0.1)):
            other = get(group, peer)
            if ptc and other:
                ratio = ptc / other
                want = "≤ 1 (as fast as Lua 5.4)" if peer == "lua54" else "≤ 0.1 (10× Rhai)"
                lines.append(f"| {group}: ptc/{peer} {want} | {ratio:.2f} | "
                             f"{'met' if ratio <= bound else 'missed'} |")
    metered, unmetered = get("loop_limits", "ptc-metered"), get("loop_limits", "ptc-unmetered")
    if metered and unmetered:
        over = metered / unmetered - 1
        lines.append(f"| metering overhead ≤ 5% | {over * 100:+.1f}% | {'met' if over <= 0.05 else 'missed'} |")
        limited = {e: v[0] for e, v in results["loop_limits"].items()
                   if not e.startswith("ptc") and not e.endswith("-off")}
        if limited:
            fastest = min(limited, key=limited.get)
            lines.append(f"| metered ptc faster than every limited peer | ptc {fmt(metered)}, best peer "
                         f"{fastest} {fmt(limited[fastest])} | {'met' if metered < limited[fastest] else 'missed'} |")
    cold = get("cold_tiny", "ptc-reuse")
    if cold:
        peers = {e: v[0] for e, v in results["cold_tiny"].items() if e.endswith("-reuse") and not e.startswith("ptc")}
        verdict = cold <= 20_000 and all(cold < v for v in peers.values())
        best = min(peers, key=peers.get) if peers else "none"
        lines.append(f"| cold request ≤ 20 µs and faster than every peer | ptc {fmt(cold)}, best peer {best} "
                     f"{fmt(peers.get(best, 0))} | {'met' if verdict else 'missed'} |")
    host = get("host_read_x100", "ptc")
    if host:
        per_call = host / 100
        lines.append(f"| host call ≤ 1 µs (whole loop / 100, an upper bound) | {fmt(per_call)} | "
                     f"{'met' if per_call <= 1000 else 'missed'} |")
    ideal = 256 / 16 * 1e6
    for engine, baseline, how in (("ptc", "tokio-baseline", "tokio timer sleep"),
                                  ("ptc-precise", "precise-baseline", "OS sleep on the blocking pool")):
        fan = get("fanout256", engine)
        if not fan:
            continue
        base = get("fanout256", baseline)
        against = f"; {fan / base:.2f}× the same host without ptc ({fmt(base)})" if base else ""
        lines.append(f"| fan-out within 10% of ideal 16 ms ({how}) | {fmt(fan)} "
                     f"({fan / ideal:.2f}× ideal{against}) | "
                     f"{'met' if fan <= ideal * 1.1 else 'missed'} |")
    sizes = {int(e.split("/")[1]): v[0] for e, v in results.get("shared_list", {}).items() if "/" in e}
    if len(sizes) >= 2:
        ns = sorted(sizes)
        per = [sizes[n] / n for n in ns]
        growth = per[-1] / per[0]
        lines.append(f"| accounting linear (time/n from n={ns[0]} to {ns[-1]}) | "
                     f"{' → '.join(fmt(p) for p in per)} per element ({growth:.2f}×) | "
                     f"{'met' if growth < 1.5 else 'missed'} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
