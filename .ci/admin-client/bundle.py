"""Writes Schemas/doppel-admin.openapi.yaml as one file for client generators that follow no
reference to another file (openapi-python-client): each `const` written as the `enum` of one
value (a boolean one as any boolean), which it reads, and the manifest schema's `$defs` are copied under
`components/schemas` as `ManifestDefinition_<name>`, and every `$ref` to them points there.

    python3 bundle.py <admin document> <manifest schema> <output file>
"""

import json
import sys

import yaml

admin = yaml.safe_load(open(sys.argv[1]))
manifest = json.load(open(sys.argv[2]))


def rewrite(node):
    if isinstance(node, dict):
        # openapi-python-client 0.29 writes invalid Python for a `const: true` property, and
        # cannot read `enum: [true]`: such a value is any boolean to the client (the server still
        # checks it); another `const` is the same schema as the `enum` of its one value.
        if "const" in node:
            value = node.pop("const")
            if isinstance(value, bool):
                node["type"] = "boolean"
            else:
                node["enum"] = [value]
        ref = node.get("$ref")
        if isinstance(ref, str) and "#/$defs/" in ref and not ref.startswith("#/components/"):
            node["$ref"] = "#/components/schemas/ManifestDefinition_" + ref.split("#/$defs/", 1)[1]
        for value in node.values():
            rewrite(value)
    elif isinstance(node, list):
        for value in node:
            rewrite(value)


def referenced(node, found):
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and "#/$defs/" in ref:
            name = ref.split("#/$defs/", 1)[1]
            if name not in found:
                found.add(name)
                referenced(manifest["$defs"][name], found)
        for value in node.values():
            referenced(value, found)
    elif isinstance(node, list):
        for value in node:
            referenced(value, found)


# Only the definitions the document reaches, each once.
needed = set()
referenced(admin, needed)
schemas = admin["components"]["schemas"]
for name in sorted(needed):
    schemas["ManifestDefinition_" + name] = manifest["$defs"][name]
rewrite(admin)
json.dump(admin, open(sys.argv[3], "w"), indent=1)
