#!/usr/bin/env python3
"""Gives a re-exporting module's documentation the symbols of the modules it re-exports.

`import Doppel` re-exports DoppelToolkit, DoppelCore, DoppelRecording and DoppelManifest, and the
Doppel catalog documents them all as one module, as a user sees it. Xcode's documentation build
emits symbol graphs while compiling, which already puts re-exported symbols in the module's graph;
`swift package dump-symbol-graph` (swift-symbolgraph-extract) does not (swiftlang/swift#60232).
This does for the dumped graphs what the compiler does: each layer's symbols and relationships
join `<module>.symbols.json`, extensions of a layer's types by another layer become members of the
type itself, and extensions of other modules' types (Foundation's) go to `<module>@<Other>`.

Another module's extensions of the layers' types (`DoppelServer@DoppelCore`) become extensions of
the re-exporting module's (`DoppelServer@Doppel`), as a user who imports it sees them:

  merge-symbol-graphs.py GRAPHS OUT MODULE LAYER...             the module's own graphs
  merge-symbol-graphs.py --extensions-of GRAPHS OUT OTHER MODULE LAYER...
"""
import json
import os
import sys

extensions_of = sys.argv[1] == "--extensions-of"
arguments = sys.argv[2:] if extensions_of else sys.argv[1:]
graphs, out = arguments[0], arguments[1]
other = arguments[2] if extensions_of else None
module, layers = (arguments[3], arguments[4:]) if extensions_of else (arguments[2], arguments[3:])
inside = set(layers) | {module}
os.makedirs(out, exist_ok=True)


def load(name):
    with open(os.path.join(graphs, name), encoding="utf-8") as file:
        return json.load(file)


merged = {}  # file name -> graph


def target(name, like):
    if name not in merged:
        graph = dict(like)
        graph["module"] = dict(like["module"], name=module)
        graph["symbols"], graph["relationships"] = [], []
        merged[name] = graph
    return merged[name]


def renamed(value):
    """`value` with each layer named as the re-exporting module, where a graph names the module a
    symbol extends."""
    if isinstance(value, dict):
        return {k: (module if k == "extendedModule" and v in inside else renamed(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [renamed(v) for v in value]
    return value


for file in sorted(os.listdir(graphs)):
    if not file.endswith(".symbols.json"):
        continue
    stem = file[: -len(".symbols.json")]
    owner, _, extended = stem.partition("@")
    if extensions_of:
        if owner != other:
            continue
        name = f"{other}@{module}.symbols.json" if extended in inside else file
        graph = renamed(load(file))
        into = merged.setdefault(name, dict(graph, symbols=[], relationships=[]))
        into["symbols"] += graph["symbols"]
        into["relationships"] += graph["relationships"]
        continue
    if owner not in inside:
        continue
    graph = renamed(load(file))
    if extended and extended not in inside:
        into = target(f"{module}@{extended}.symbols.json", renamed(graph))
        into["symbols"] += graph["symbols"]
        into["relationships"] += graph["relationships"]
        continue
    into = target(f"{module}.symbols.json", graph)
    # An extension of a type of the same (merged) module is a block of members, not a symbol.
    blocks = {r["source"]: r["target"] for r in graph["relationships"] if r["kind"] == "extensionTo"}
    into["symbols"] += [s for s in graph["symbols"] if s["identifier"]["precise"] not in blocks]
    for relationship in graph["relationships"]:
        if relationship["kind"] == "extensionTo":
            continue
        if relationship["target"] in blocks:
            relationship = dict(relationship, target=blocks[relationship["target"]])
        if relationship["source"] in blocks:
            relationship = dict(relationship, source=blocks[relationship["source"]])
        into["relationships"].append(relationship)

for name, graph in merged.items():
    with open(os.path.join(out, name), "w", encoding="utf-8") as file:
        json.dump(graph, file)
