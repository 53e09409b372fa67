"""Make the standalone Kubernetes schemas under ``kubernetes/`` from kubernetes-validate's.

kubeconform validates offline only against self-contained files: the ``-local-strict``
schemas that the ``kubernetes-validate`` wheel (PyPI) ships point every ``$ref`` at
``/api/_definitions.json`` under an ``https://kubernetes.io/`` ``$id``, which kubeconform
would fetch. This inlines each reference (the referring object's own keys, such as its
description, win) and drops the ``$id``; nothing else changes.

Run once when moving to another Kubernetes version (see README.md beside this file)::

    pip download --no-deps kubernetes-validate==1.37.0 -d /tmp/kv
    unzip -q /tmp/kv/kubernetes_validate-1.37.0-py3-none-any.whl -d /tmp/kv
    python helm/schemas/standalone.py \
        /tmp/kv/kubernetes_validate/kubernetes-json-schema/v1.35.0-local-strict \
        helm/schemas/kubernetes/v1.35.0-standalone-strict
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

# The kinds the chart renders, as kubeconform names their schema files.
KINDS = (
    "configmap-v1",
    "secret-v1",
    "serviceaccount-v1",
    "deployment-apps-v1",
    "job-batch-v1",
    "poddisruptionbudget-policy-v1",
    "horizontalpodautoscaler-autoscaling-v2",
)
# How the kind files (first) and the definitions themselves (second) refer to a definition.
PREFIXES = ("/api/_definitions.json#/$defs/", "#/$defs/")


def inline(node: Any, defs: dict[str, Any], seen: tuple[str, ...] = ()) -> Any:
    """``node`` with every ``$ref`` into the definitions replaced by the definition."""
    if isinstance(node, list):
        return [inline(item, defs, seen) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        prefix = next((p for p in PREFIXES if ref.startswith(p)), None)
        if prefix is None:
            raise SystemExit(f"unexpected $ref {ref!r}")
        name = ref.removeprefix(prefix)
        if name in seen:
            raise SystemExit(f"recursive definition {name} (via {' > '.join(seen)})")
        own = {k: v for k, v in node.items() if k != "$ref"}
        return inline({**defs[name], **own}, defs, (*seen, name))
    return {k: inline(v, defs, seen) for k, v in node.items() if k != "$id"}


def main(source: Path, target: Path) -> None:
    """Write the standalone schema of each kind in :data:`KINDS` from ``source`` to ``target``."""
    defs = json.loads((source / "_definitions.json").read_text())["$defs"]
    target.mkdir(parents=True, exist_ok=True)
    for kind in KINDS:
        schema = inline(json.loads((source / f"{kind}.json").read_text()), defs)
        (target / f"{kind}.json").write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
