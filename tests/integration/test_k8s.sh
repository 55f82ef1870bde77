#!/usr/bin/env bash
# The Kubernetes recipe of docs/cluster.md: its StatefulSet manifest
# (docs/kubernetes/bmk-load.yaml, shown in the doc) is checked against the
# Kubernetes API's object schema as Debian's python3-kubernetes client
# carries it (tools/k8s_check.py: unknown fields, wrong types, missing
# required fields). CI has no cluster, so nothing is applied. Static check;
# needs no server.
source "$(dirname "$0")/lib/lib.sh"

MANIFEST=$TOP/docs/kubernetes/bmk-load.yaml
CHECK=$TOP/tests/integration/tools/k8s_check.py
# Debian's Python: python3-kubernetes installs there, and a python3 earlier
# on the PATH (pyenv, a venv) would not see it.
PY=/usr/bin/python3
WORK=$(mktemp -d /tmp/bmk-k8s-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# The doc shows the file itself (indented by 4), so the two cannot drift.
doc_block=$(awk '/^    apiVersion: apps\/v1$/{on=1} on && !/^    /{exit} on{print substr($0, 5)}' \
  "$TOP/docs/cluster.md")
assert_eq "docs/cluster.md shows docs/kubernetes/bmk-load.yaml as it is" "$(cat "$MANIFEST")" "$doc_block"

if ! "$PY" -c 'import kubernetes, yaml' 2>/dev/null; then
  skip_core "manifest against the API schema" "Debian's python3-kubernetes and python3-yaml are not installed (apt-get install python3-kubernetes python3-yaml)"
  finish
fi

OUT=$("$PY" "$CHECK" "$MANIFEST" 2>&1); RC=$?
assert_eq "the StatefulSet is valid against the API schema" "0:" "$RC:$OUT"

# The checker refuses what the API server would: each broken copy names
# the field. (A checker that passed everything would pass the manifest.)
bad() {  # name sed-expression expected-message
  sed "$2" "$MANIFEST" > "$WORK/bad.yaml"
  OUT=$("$PY" "$CHECK" "$WORK/bad.yaml" 2>&1); RC=$?
  assert_eq "refused: $1" "1:$WORK/bad.yaml: document 1: $3" "$RC:$OUT"
}
bad "an unknown field" 's/^  replicas: 4$/  replica: 4/' \
  "StatefulSet.spec.replica: unknown field of V1StatefulSetSpec"
bad "a string for an integer" 's/^  replicas: 4$/  replicas: "4"/' \
  "StatefulSet.spec.replicas: expected int, got str '4'"
bad "a container without its required name" 's/^      - name: bmk$/      - tty: false/' \
  "StatefulSet.spec.template.spec.containers[0].name: missing (required by V1Container)"
bad "a map where the API takes a list" 's/^        command: .*/        command: {run: sleep}/' \
  "StatefulSet.spec.template.spec.containers[0].command: expected a list, got dict"
bad "an unknown kind" 's/^kind: StatefulSet$/kind: LoadSet/' "unknown apiVersion/kind apps/v1/LoadSet"

finish
