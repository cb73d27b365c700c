#!/usr/bin/env python3
"""Writes the README results table from one criterion run.

Reads target/criterion/<group>/<engine>/new/estimates.json (median point estimate and its
95% confidence interval) and prints a Markdown table per group with ptc/peer ratios, then
the issue #5 target checks. Usage: python3 benches/report.py [target/criterion] > table.md

With `--gungraun [DIR]` it instead reads the summaries of the instruction-count bench
(`cargo bench -p ptc-benches --features lua54 --bench instructions -- --save-summary`,
DIR defaulting to target/gungraun/ptc-benches/instructions) and prints the table
"ptc vs Lua 5.4, instructions" with ratios, the primitive-call overhead and issue #16's
instruction targets.
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


# Issue #16's workloads: (bench id, label, Lua 5.4 bench id, target ptc/Lua ratio or None).
GUNGRAUN_ROWS = [
    ("fib25", "fib(25)", "fib25", 1.0),
    ("loop_1e6", "loop 1e6 (`dotimes` / numeric `for`)", "loop_1e6", 1.0),
    ("list_10k", "list 10k vs Lua tables", "list_10k", 1.5),
    ("list_10k", "list 10k vs Lua cons cells", "list_10k_cons", 1.0),
    ("string_build", "string build (126 KB: concat, split, join, upcase)", "string_build", 1.0),
    ("closures_10k", "closures 10k", "closures_10k", 1.0),
    ("plist_get_100k", "100k `plist-get` vs Lua `t[k]`", "plist_get_100k", None),
    ("cold_request", "cold request (compile + run; Lua: `load` + call, state reused)",
     "cold_request", None),
]
PRIM_CALLS = 100_000
PRIM_TARGET = 120


def gungraun_load(root):
    """{(function, id): instructions} from every summary.json under root."""
    counts = {}
    for path in root.glob("**/summary.json"):
        summary = json.loads(path.read_text())
        for profile in summary.get("profiles", []):
            if profile.get("tool") != "Callgrind":
                continue
            values = profile["data"]["total"]["metrics"]["Ir"]["values"]
            value = values.get("new", next(iter(values.values()), None))
            if value is not None:
                counts[(summary["function_name"], summary["id"])] = int(value)
    return counts


def n(value):
    return f"{value:,}".replace(",", " ")


def gungraun_report(root):
    counts = gungraun_load(root)
    if not counts:
        sys.exit(f"no gungraun summaries under {root}: run the bench with -- --save-summary")
    lines = ["| workload | ptc instructions | Lua 5.4 instructions | ptc / Lua | issue #16 target |",
             "|---|---|---|---|---|"]
    for ptc_id, label, lua_id, target in GUNGRAUN_ROWS:
        ptc, lua = counts.get(("ptc", ptc_id)), counts.get(("lua54", lua_id))
        if ptc is None:
            continue
        ratio = f"{ptc / lua:.2f}" if lua else "—"
        verdict = ""
        if target is not None and lua:
            verdict = f"≤ {target:.1f}: {'met' if ptc / lua <= target else 'missed'}"
        lines.append(f"| {label} | {n(ptc)} | {n(lua) if lua else '—'} | {ratio} | {verdict} |")
    lines += ["", f"| primitive call ({n(PRIM_CALLS)} calls, 2 small arguments) | ptc instructions "
              f"| per call over the baseline loop | target ≤ {PRIM_TARGET} |", "|---|---|---|---|"]
    base = counts.get(("ptc", "prim_baseline"))
    if base is not None:
        lines.append(f"| baseline loop (a variable, no call) | {n(base)} | 0 | |")
        for case in sorted(k[1] for k in counts if k[0] == "ptc" and k[1].startswith("prim_")):
            if case == "prim_baseline":
                continue
            count = counts[("ptc", case)]
            per = (count - base) / PRIM_CALLS
            name = case.removeprefix("prim_").replace("_", "-")
            lines.append(f"| `{name}` | {n(count)} | {per:.0f} | "
                         f"{'met' if per <= PRIM_TARGET else 'missed'} |")
    metered, unmetered = counts.get(("ptc", "loop_1e6")), counts.get(("ptc", "loop_1e6_unmetered"))
    if metered and unmetered:
        over = metered / unmetered
        lines += ["", "| metering overhead (loop 1e6, metered / unmetered instructions) | ratio | target ≤ 1.05 |",
                  "|---|---|---|",
                  f"| {n(metered)} / {n(unmetered)} | {over:.4f} | {'met' if over <= 1.05 else 'missed'} |"]
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--gungraun":
        print(gungraun_report(pathlib.Path(
            sys.argv[2] if len(sys.argv) > 2 else "target/gungraun/ptc-benches/instructions")))
    else:
        main()
