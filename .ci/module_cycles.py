#!/usr/bin/env python3
"""Module cycles inside a crate: the top-level modules of SRC and which of them each one
names (`crate::NAME`, or `use super::NAME` from a direct child); prints every strongly
connected component of more than one module and exits 1 if there is any.

Test code (from a `#[cfg(test)]` line on) and comments are not counted: a test may use
anything. Usage: module_cycles.py SRC [SRC ...]
"""
import os
import re
import sys


def modules(src):
    names = {}
    for entry in sorted(os.listdir(src)):
        path = os.path.join(src, entry)
        if entry in ("lib.rs", "main.rs"):
            continue
        if entry.endswith(".rs"):
            names.setdefault(entry[:-3], []).append(path)
        elif os.path.isdir(path):
            for root, _, files in os.walk(path):
                names.setdefault(entry, []).extend(
                    os.path.join(root, f) for f in files if f.endswith(".rs"))
    return names


def code_of(path):
    text = open(path, encoding="utf-8").read()
    cut = re.search(r"^\s*#\[cfg\(test\)\]", text, re.M)
    if cut:
        text = text[: cut.start()]
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("//"))


def edges(src):
    mods = modules(src)
    graph = {name: set() for name in mods}
    for name, files in mods.items():
        for path in files:
            code = code_of(path)
            for other in re.findall(r"\bcrate::([a-z_][a-z0-9_]*)", code):
                if other in graph and other != name:
                    graph[name].add(other)
            # `use crate::{a, b::c}` groups
            for group in re.findall(r"\bcrate::\{([^}]*)\}", code):
                for other in re.findall(r"(?:^|,)\s*([a-z_][a-z0-9_]*)", group):
                    if other in graph and other != name:
                        graph[name].add(other)
    return graph


def cycles(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    bad = False
    for src in sys.argv[1:]:
        graph = edges(src)
        found = cycles(graph)
        for component in found:
            bad = True
            detail = "; ".join(
                f"{a} -> {', '.join(sorted(graph[a] & set(component)))}" for a in component)
            print(f"{src}: module cycle {{{', '.join(component)}}}: {detail}")
        if not found:
            print(f"{src}: {len(graph)} modules, no cycle")
    sys.exit(1 if bad else 0)


main()
