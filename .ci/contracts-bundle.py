"""Writes a split OpenAPI description as schemathesis can read it, for .ci/contracts.

DigitalOcean writes its operations as `get: {$ref: resources/…/list.yml}` and some texts and
`properties` as `$ref`s too, which the standard does not allow there (Doppel reads them, with a
warning). schemathesis, the independent judge, follows only the `$ref`s the standard allows, so it
would see operations without responses. This script writes the main file with those `$ref`s
replaced by what they name (their own `$ref`s rewritten to stay correct from the main file's
folder).

    python3 contracts-bundle.py <main file> <output file>

Every other file a `$ref` names is copied under the output's `components`, so the output is one
self-contained file; the description itself is not changed.
"""

import json
import os
import posixpath
import re
import sys

import yaml

METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
TEXT_KEYS = {"description", "summary", "title", "termsOfService"}

main_file = os.path.abspath(sys.argv[1])
root = os.path.dirname(main_file)
cache = {}


def load(relative):
    if relative not in cache:
        with open(os.path.join(root, relative)) as handle:
            cache[relative] = yaml.safe_load(handle)
    return cache[relative]


def split(reference, base):
    """The file (relative to the root) and the pointer a reference written in `base` names."""
    file_part, _, pointer = reference.partition("#")
    target = posixpath.normpath(posixpath.join(posixpath.dirname(base), file_part)) if file_part else base
    return target, pointer


def resolve(reference, base):
    target, pointer = split(reference, base)
    node = load(target)
    for token in [t for t in pointer.split("/") if t]:
        token = token.replace("~1", "/").replace("~0", "~")
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node, target


bundled = {}
names = {}
# What the entries of a member named so are, for the components section a copy goes in.
CONTAINERS = {"responses": "responses", "parameters": "parameters", "headers": "headers",
              "examples": "examples", "links": "links", "callbacks": "callbacks"}


def key_for(target, pointer):
    """A name for the copy of what `target#pointer` names, unique, of letters, digits and `_`."""
    whole = target + "#" + pointer
    if whole not in names:
        name = re.sub(r"[^A-Za-z0-9_]", "_", whole)
        while name in names.values():
            name += "_"
        names[whole] = name
    return names[whole]


def rebased(node, base, kind="schemas", depth=0):
    """`node` (written in `base`, a `kind` of component where it is a `$ref`) with every `$ref` to
    another file turned into one to its copy under `components`, and the non-standard `$ref`s (an
    operation, a `properties`, a text, an example) replaced by what they name."""
    if depth > 400:
        raise SystemExit("the description nests too deep")
    if isinstance(node, list):
        return [rebased(item, base, kind, depth + 1) for item in node]
    if not isinstance(node, dict):
        return node
    if set(node) == {"$ref"} and isinstance(node["$ref"], str):
        target, pointer = split(node["$ref"], base)
        if target == MAIN_NAME:
            return {"$ref": "#" + pointer}
        name = key_for(target, pointer)
        section = bundled.setdefault(kind, {})
        if name not in section:
            section[name] = None
            named, where = resolve(node["$ref"], base)
            section[name] = rebased(named, where, kind, depth + 1)
        return {"$ref": "#/components/" + kind + "/" + name}
    result = {}
    for key, value in node.items():
        if isinstance(value, dict) and set(value) == {"$ref"} and (
            key in ("properties", "example") or key in TEXT_KEYS
        ):
            named, where = resolve(value["$ref"], base)
            if key == "example" and isinstance(named, dict) and "value" in named:
                named = named["value"]
            result[key] = rebased(named, where, "schemas", depth + 1)
            continue
        if key in METHODS and isinstance(value, dict) and set(value) == {"$ref"} and kind == "pathItems":
            named, where = resolve(value["$ref"], base)
            result[key] = rebased(named, where, "operations", depth + 1)
            continue
        if key == "paths" and depth == 0:
            result[key] = {path: rebased(item, base, "pathItems", depth + 2) for path, item in value.items()}
            continue
        if key in CONTAINERS and kind not in ("schemas-map",) and isinstance(value, (dict, list)):
            entries = CONTAINERS[key]
            if isinstance(value, dict):
                result[key] = {name: rebased(item, base, entries, depth + 2) for name, item in value.items()}
            else:
                result[key] = [rebased(item, base, entries, depth + 2) for item in value]
            continue
        if key == "properties" and isinstance(value, dict):
            result[key] = {name: rebased(item, base, "schemas", depth + 2) for name, item in value.items()}
            continue
        child = "requestBodies" if key == "requestBody" else "schemas"
        result[key] = rebased(value, base, child, depth + 1)
    return result


MAIN_NAME = os.path.basename(main_file)
sys.setrecursionlimit(20000)
document = rebased(load(MAIN_NAME), MAIN_NAME, "document")
components = document.setdefault("components", {})
for section, entries in bundled.items():
    components.setdefault(section, {}).update(entries)

with open(sys.argv[2], "w") as handle:
    json.dump(document, handle, default=str)
