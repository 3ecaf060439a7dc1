"""The OpenAPI schema describes every field of the learner's routes (issue 29): players, statistics,
achievements, cards, the archive, the plan, the daily puzzles and attempts, the library."""

from __future__ import annotations

from typing import Any

PREFIXES = ("/v1/players", "/v1/daily", "/v1/library")


def referenced(node: Any, schemas: dict[str, Any], out: set[str]) -> set[str]:
    """The component schemas ``node`` refers to, and theirs."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if ref and ref.split("/")[-1] not in out:
            out.add(ref.split("/")[-1])
            referenced(schemas[ref.split("/")[-1]], schemas, out)
        for v in node.values():
            referenced(v, schemas, out)
    elif isinstance(node, list):
        for v in node:
            referenced(v, schemas, out)
    return out


def test_every_field_of_the_learners_routes_is_described() -> None:
    from services.gateway.app import create_app

    spec = create_app().openapi()
    schemas = spec["components"]["schemas"]
    names: set[str] = set()
    for path, item in spec["paths"].items():
        if path.startswith(PREFIXES):
            referenced(item, schemas, names)
    assert {"Statistics", "PlayedMatch", "WeeklyPlan", "CardOut", "AttemptOut", "LibraryList"} <= names
    missing = [
        f"{name}.{prop}"
        for name in sorted(names)
        for prop, schema in schemas[name].get("properties", {}).items()
        if not schema.get("description")
    ]
    assert not missing, f"fields without a description: {missing}"
    for path, item in spec["paths"].items():
        if path.startswith(PREFIXES):
            for method, op in item.items():
                assert op.get("summary"), f"{method.upper()} {path} has no summary"
                for p in op.get("parameters", []):
                    described = p.get("description") or p["schema"].get("description")
                    assert described or p["in"] == "path", (method, path, p["name"])
