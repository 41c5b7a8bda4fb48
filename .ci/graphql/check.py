"""Sends realistic GraphQL queries to a running `doppel serve <schema>` and checks each answer with
graphql-core, an implementation Doppel does not share code with:

- the query is valid against the schema built from the SDL (graphql-core's validation);
- an answer with data has no errors, and re-executing the query with graphql-core over Doppel's
  data (resolvers read each field by its response key) gives the same data with no errors: every
  field present, of its type, non-null where it must be, nothing extra, in order;
- introspection answers what graphql-core's own introspection of the same SDL gives;
- a connection's page is consistent: `first`/`last` nodes (up to the total), `hasNextPage` /
  `hasPreviousPage` true exactly when there are more, `totalCount` at least the nodes, and
  `startCursor`/`endCursor` the first and last edge's cursors;
- a request with a missing or mistyped variable gets `errors` and no `data`.

    python check.py <schema.graphql> <http://127.0.0.1:PORT/graphql>

Prints one line per query and a summary; exits 1 on any failure.
"""

import json
import sys
import urllib.request

from graphql import (
    build_schema,
    execute,
    get_introspection_query,
    parse,
    validate,
)

INTROSPECTION = get_introspection_query(
    descriptions=True,
    specified_by_url=True,
    directive_is_repeatable=True,
    schema_description=True,
    input_value_deprecation=True,
)

QUERIES = [
    ("GraphiQL's introspection query", INTROSPECTION, None, "introspection"),
    ("type names", "{ __schema { queryType { name } types { name kind } } }", None, "introspection"),
    (
        "__type of Product",
        '{ __type(name: "Product") { name kind fields { name type { kind name ofType { kind name } } } } }',
        None,
        "introspection",
    ),
    (
        "products(first: 5)",
        'query Products { products(first: 5, channel: "default") { edges { node { id name } } '
        "pageInfo { hasNextPage hasPreviousPage } totalCount } }",
        None,
        "data",
    ),
    (
        "products(last: 3)",
        'query Last { products(last: 3, channel: "default") { edges { cursor node { id } } '
        "pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount } }",
        None,
        "data",
    ),
    (
        "variables",
        "query Product($id: ID!, $channel: String) { product(id: $id, channel: $channel) "
        "{ id name slug created rating category { id name } } }",
        {"id": "UHJvZHVjdDox", "channel": "default"},
        "data",
    ),
    (
        "fragments",
        "query Categories($first: Int!) { categories(first: $first) { totalCount edges { node { ...CategoryFields "
        "children(first: 2) { edges { node { ...CategoryFields } } } } } } } "
        "fragment CategoryFields on Category { id name slug level }",
        {"first": 3},
        "data",
    ),
    (
        "interface and __typename",
        "query Attributes($id: ID!) { product(id: $id) { __typename id assignedAttributes(limit: 3) "
        "{ __typename attribute { id name } ... on AssignedTextAttribute { text: value } } } }",
        {"id": "UHJvZHVjdDox"},
        "data",
    ),
    (
        "union and __typename",
        "query Checkout($id: ID) { checkout(id: $id) { id deliveryMethod { __typename "
        "... on Warehouse { id name } ... on ShippingMethod { id name } } } }",
        {"id": "Q2hlY2tvdXQ6MQ=="},
        "data",
    ),
    (
        "aliases and @include",
        "query Shop($countries: Boolean!) { shop { name countries @include(if: $countries) { code country } } "
        "again: shop { shopName: name } }",
        {"countries": True},
        "data",
    ),
    (
        "a missing required variable",
        "query Product($id: ID!) { product(id: $id) { id name } }",
        {},
        "errors",
    ),
    (
        "a variable of the wrong type",
        "query Categories($first: Int!) { categories(first: $first) { totalCount } }",
        {"first": "five"},
        "errors",
    ),
]


def post(url, query, variables):
    body = {"query": query}
    if variables is not None:
        body["variables"] = variables
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read(), object_pairs_hook=dict)


def by_response_key(source, info, **_arguments):
    return source.get(info.path.key) if isinstance(source, dict) else None


def type_name(value, info, abstract_type):
    if isinstance(value, dict) and "__typename" in value:
        return value["__typename"]
    return info.schema.get_possible_types(abstract_type)[0].name


def shape(schema_json):
    """What introspection must agree on: each type's kind and the names of its members."""

    def names(items):
        return [item["name"] for item in items or []]

    def ref(type_ref):
        if type_ref is None:
            return None
        return (type_ref.get("kind"), type_ref.get("name"), ref(type_ref.get("ofType")))

    types = {}
    for t in schema_json.get("types", []):
        types[t["name"]] = {
            "kind": t.get("kind"),
            "fields": [
                (f["name"], names(f.get("args")), ref(f.get("type"))) for f in t.get("fields") or []
            ]
            if "fields" in t
            else None,
            "inputFields": names(t.get("inputFields")) if "inputFields" in t else None,
            "enumValues": names(t.get("enumValues")) if "enumValues" in t else None,
            "interfaces": names(t.get("interfaces")) if "interfaces" in t else None,
            "possibleTypes": sorted(names(t.get("possibleTypes"))) if "possibleTypes" in t else None,
        }
    return types


def pages(value, path=""):
    """Every connection (an object with edges and pageInfo or totalCount) in an answer."""
    if isinstance(value, dict):
        if "edges" in value and ("pageInfo" in value or "totalCount" in value):
            yield path, value
        for key, item in value.items():
            yield from pages(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from pages(item, f"{path}[{index}]")


def check(schema, url, name, query, variables, expect):
    document = parse(query)
    problems = [f"graphql-core finds the query invalid: {error.message}" for error in validate(schema, document)]
    if problems:
        return problems
    answer = post(url, query, variables)
    if expect == "errors":
        if not answer.get("errors"):
            problems.append(f"expected errors, got {json.dumps(answer)[:300]}")
        if "data" in answer:
            problems.append(f"expected no data, got data: {json.dumps(answer.get('data'))[:300]}")
        reference = execute(schema, document, variable_values=variables)
        if not reference.errors:
            problems.append("graphql-core itself accepts these variables")
        return problems
    if answer.get("errors"):
        problems.append(f"errors: {json.dumps(answer['errors'])[:300]}")
    data = answer.get("data")
    if not isinstance(data, dict):
        return problems + [f"no data: {json.dumps(answer)[:300]}"]
    if expect == "introspection":
        reference = execute(schema, document, variable_values=variables)
        if reference.errors:
            return problems + [f"graphql-core cannot run it: {reference.errors[0].message}"]
        if "__schema" in reference.data:
            ours, theirs = shape(data.get("__schema") or {}), shape(reference.data["__schema"])
            if set(ours) != set(theirs):
                problems.append(
                    f"types differ: only Doppel's {sorted(set(ours) - set(theirs))[:10]}, only graphql-core's {sorted(set(theirs) - set(ours))[:10]}"
                )
            # The introspection types themselves differ between implementations (GraphQLSwift's
            # __Type has isOneOf, graphql-core 3.2's has not): only the schema's own are compared.
            for type_name_, members in theirs.items():
                if type_name_.startswith("__"):
                    continue
                if type_name_ in ours and ours[type_name_] != members:
                    problems.append(f"type {type_name_} differs: Doppel {str(ours[type_name_])[:200]} graphql-core {str(members)[:200]}")
                    if len(problems) > 10:
                        break
            for key in ("queryType", "mutationType", "subscriptionType"):
                if (data.get("__schema") or {}).get(key) != reference.data["__schema"].get(key):
                    problems.append(f"{key} differs")
        if "__type" in reference.data and data.get("__type") != reference.data["__type"]:
            problems.append(f"__type differs: {json.dumps(data.get('__type'))[:300]}")
        return problems
    again = execute(
        schema,
        document,
        root_value=data,
        variable_values=variables,
        field_resolver=by_response_key,
        type_resolver=type_name,
    )
    for error in again.errors or []:
        problems.append(f"re-executed over Doppel's data: {error.message} at {error.path}")
    if json.dumps(again.data) != json.dumps(data):
        problems.append(f"re-executed data differs: {json.dumps(again.data)[:300]} vs {json.dumps(data)[:300]}")
    for path, page in pages(data):
        count = len(page["edges"])
        total = page.get("totalCount")
        info = page.get("pageInfo") or {}
        arguments = "first" if "first:" in query or "$first" in query else "last"
        cursors = [edge.get("cursor") for edge in page["edges"] if isinstance(edge, dict) and "cursor" in edge]
        if cursors and "startCursor" in info and info["startCursor"] != cursors[0]:
            problems.append(f"{path}: startCursor {info['startCursor']} is not the first edge's {cursors[0]}")
        if cursors and "endCursor" in info and info["endCursor"] != cursors[-1]:
            problems.append(f"{path}: endCursor {info['endCursor']} is not the last edge's {cursors[-1]}")
        if total is not None and count > total:
            problems.append(f"{path}: {count} edges but totalCount {total}")
        if total is not None and arguments == "first" and "hasNextPage" in info and info["hasNextPage"] != (total > count):
            problems.append(f"{path}: hasNextPage {info['hasNextPage']} with {count} of {total}")
        if total is not None and arguments == "last" and "hasPreviousPage" in info and info["hasPreviousPage"] != (total > count):
            problems.append(f"{path}: hasPreviousPage {info['hasPreviousPage']} with {count} of {total}")
    if name == "products(first: 5)":
        page = data["products"]
        if len(page["edges"]) != min(5, page["totalCount"]):
            problems.append(f"products(first: 5) gave {len(page['edges'])} edges of {page['totalCount']}")
    if name == "products(last: 3)":
        page = data["products"]
        if len(page["edges"]) != min(3, page["totalCount"]):
            problems.append(f"products(last: 3) gave {len(page['edges'])} edges of {page['totalCount']}")
    return problems


def main():
    schema_path, url = sys.argv[1], sys.argv[2]
    with open(schema_path, encoding="utf-8") as file:
        schema = build_schema(file.read())
    failed = 0
    for name, query, variables, expect in QUERIES:
        try:
            problems = check(schema, url, name, query, variables, expect)
        except Exception as error:  # a crash of the check is a failure, reported as one
            problems = [f"{type(error).__name__}: {error}"]
        if problems:
            failed += 1
            print(f"FAIL {name}")
            for problem in problems[:12]:
                print(f"  {problem}")
        else:
            print(f"ok   {name}")
    print(f"graphql-core: {len(QUERIES) - failed} of {len(QUERIES)} queries conform ({failed} failed)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
