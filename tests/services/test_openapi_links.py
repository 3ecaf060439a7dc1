"""The OpenAPI links the gateway declares (services/gateway/links.py) point at operations of its own schema,
name parameters those operations take and read a field the creating response has: clients and schemathesis's
stateful phase follow them (a link to a missing operation makes schemathesis refuse the whole run)."""

from __future__ import annotations

from typing import Any


def operation(spec: dict[str, Any], ref: str) -> dict[str, Any] | None:
    """The operation of an ``operationRef`` (``#/paths/<escaped path>/<method>``)."""
    path, method = ref.removeprefix("#/paths/").rsplit("/", 1)
    item = spec["paths"].get(path.replace("~1", "/").replace("~0", "~"), {})
    op: dict[str, Any] | None = item.get(method)
    return op


def test_every_declared_link_points_at_an_operation_and_its_parameter() -> None:
    from services.gateway.app import create_app

    spec = create_app().openapi()
    seen = 0
    for path, item in spec["paths"].items():
        for method, op in item.items():
            for status, response in op.get("responses", {}).items():
                for name, link in response.get("links", {}).items():
                    where = f"{method.upper()} {path} -> [{status}] {name}"
                    target = operation(spec, link["operationRef"])
                    assert target is not None, f"{where}: no operation {link['operationRef']}"
                    params = {p["name"] for p in target.get("parameters", [])}
                    assert set(link["parameters"]) <= params, (where, link["parameters"], params)
                    seen += 1
    assert seen >= 25  # games, rollouts, batches, analyses, matches and every job kind declare theirs
