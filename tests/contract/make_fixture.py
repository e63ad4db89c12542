"""Keep what hubtui relies on of the service's published OpenAPI document: the hub and hub-user
operations and every schema they reach, as ``konekt-hubs.json`` beside this file.

    python -m tests.contract.make_fixture [tests/contract/konekt-openapi.json]

The published document (Newforma Konekt, public: the repository ``api-evangelist/newforma``,
``openapi/_original/newforma-konekt-openapi-original.json``) is kept beside this file, so that
the project carries every file its tests read.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
FIXTURE = HERE / "konekt-hubs.json"
PUBLISHED = HERE / "konekt-openapi.json"
#: The operations hubtui calls that the published document has.
PATHS = (
    "/v3/hubs",
    "/v3/hubs/{hubId}",
    "/v3/hubs/name/{hubName}",
    "/v3/hubs/{hubId}/users",
    "/v3/hubs/{hubId}/users/{userId}",
)
PREFIX = "#/components/schemas/"


def refs(node: Any) -> set[str]:
    """The schema names ``node`` refers to."""
    found: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(PREFIX):
            found.add(ref[len(PREFIX) :])
        for value in node.values():
            found |= refs(value)
    elif isinstance(node, list):
        for value in node:
            found |= refs(value)
    return found


def extract(document: dict[str, Any]) -> dict[str, Any]:
    paths = {path: document["paths"][path] for path in PATHS}
    schemas = document["components"]["schemas"]
    wanted: set[str] = set()
    todo = refs(paths)
    while todo:
        name = todo.pop()
        if name not in wanted:
            wanted.add(name)
            todo |= refs(schemas[name])
    return {
        "openapi": document["openapi"],
        "info": document["info"],
        "paths": paths,
        "components": {"schemas": {name: schemas[name] for name in sorted(wanted)}},
    }


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else PUBLISHED
    kept = extract(json.loads(source.read_text(encoding="utf-8")))
    FIXTURE.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{FIXTURE}: {len(kept['paths'])} paths, {len(kept['components']['schemas'])} schemas")


if __name__ == "__main__":
    main()
