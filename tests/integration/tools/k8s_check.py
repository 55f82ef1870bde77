#!/usr/bin/python3
"""Checks Kubernetes manifests against the API's object schema, offline.

Usage: k8s_check.py FILE.yaml...   (exit 0: every document is valid;
exit 1: one line per problem, naming the file, document and field path)

The schema is the one Debian's python3-kubernetes client was generated
from (the Kubernetes OpenAPI definitions, as its model classes): every
key of a document must be a field of its object type, every value of the
field's type, and every field the API requires must be there. kubectl's
own validation needs a live API server, which CI does not have.

Run with Debian's /usr/bin/python3: the package installs there, not into
another Python on the PATH.
"""
import re
import sys

import yaml
import kubernetes.client as k8s

SCALARS = {"str": (str,), "int": (int,), "bool": (bool,), "float": (int, float),
           "object": (object,), "datetime": (str,), "date": (str,)}


def model_for(api_version, kind):
    """The model class of apiVersion/kind, e.g. apps/v1 + StatefulSet."""
    version = api_version.split("/")[-1]
    return getattr(k8s, version[:1].upper() + version[1:] + kind, None)


REQUIRED = {}


def required_fields(cls):
    """The attributes the API requires of model `cls`: its constructor
    refuses None for them ("Invalid value for `name`, must not be `None`"),
    one at a time, so they are found by filling each in turn."""
    if cls not in REQUIRED:
        given, found = {}, []
        while True:
            try:
                cls(**given)
                break
            except ValueError as e:
                m = re.search(r"Invalid value for `(\w+)`, must not be `None`", str(e))
                if m is None or m.group(1) in given:
                    break
                found.append(m.group(1))
                given[m.group(1)] = "x"
        REQUIRED[cls] = found
    return REQUIRED[cls]


def check_value(value, typ, path, problems):
    """Appends to problems every way `value` is not of the client type `typ`."""
    m = re.fullmatch(r"list\[(.*)\]", typ)
    if m:
        if not isinstance(value, list):
            problems.append(f"{path}: expected a list, got {type(value).__name__}")
            return
        for i, v in enumerate(value):
            check_value(v, m.group(1), f"{path}[{i}]", problems)
        return
    m = re.fullmatch(r"dict\(str, (.*)\)", typ)
    if m:
        if not isinstance(value, dict):
            problems.append(f"{path}: expected a map, got {type(value).__name__}")
            return
        for k, v in value.items():
            check_value(v, m.group(1), f"{path}.{k}", problems)
        return
    if typ in SCALARS:
        # bool is an int in Python: an int field given true is still wrong.
        if not isinstance(value, SCALARS[typ]) or (typ == "int" and isinstance(value, bool)):
            problems.append(f"{path}: expected {typ}, got {type(value).__name__} {value!r}")
        return
    cls = getattr(k8s, typ, None)
    if cls is None:
        problems.append(f"{path}: the client has no type {typ}")
        return
    if not isinstance(value, dict):
        problems.append(f"{path}: expected an object ({typ}), got {type(value).__name__}")
        return
    fields = {json_name: attr for attr, json_name in cls.attribute_map.items()}
    for key, v in value.items():
        if key not in fields:
            problems.append(f"{path}.{key}: unknown field of {typ}")
        else:
            check_value(v, cls.openapi_types[fields[key]], f"{path}.{key}", problems)
    for attr in required_fields(cls):
        if cls.attribute_map[attr] not in value:
            problems.append(f"{path}.{cls.attribute_map[attr]}: missing (required by {typ})")


def check_document(doc):
    """Problems of one parsed YAML document (an empty list when valid)."""
    if not isinstance(doc, dict) or "apiVersion" not in doc or "kind" not in doc:
        return ["not a Kubernetes object (apiVersion and kind are required)"]
    cls = model_for(doc["apiVersion"], doc["kind"])
    if cls is None:
        return [f"unknown apiVersion/kind {doc['apiVersion']}/{doc['kind']}"]
    problems = []
    check_value(doc, cls.__name__, doc["kind"], problems)
    return problems


def main(paths):
    bad = 0
    for path in paths:
        try:
            with open(path) as f:
                docs = [d for d in yaml.safe_load_all(f) if d is not None]
        except (OSError, yaml.YAMLError) as e:
            print(f"{path}: {e}")
            bad += 1
            continue
        if not docs:
            print(f"{path}: no document")
            bad += 1
        for i, doc in enumerate(docs, 1):
            for p in check_document(doc):
                print(f"{path}: document {i}: {p}")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
