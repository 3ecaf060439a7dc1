"""OpenAPI links: from an operation that creates a resource to the operations that take its id.

Clients see in the spec where a created game's id goes; schemathesis's stateful phase follows the links
(with those it infers from response schemas) to chain calls: create, read, act, stream, export.
"""

from __future__ import annotations

from typing import Any


def _ref(method: str, path: str) -> str:
    """A JSON pointer to the operation (RFC 6901: ``~`` -> ``~0``, ``/`` -> ``~1``)."""
    return "#/paths/" + path.replace("~", "~0").replace("/", "~1") + "/" + method.lower()


def links(
    status: int, description: str, parameter: str, pointer: str, targets: dict[str, tuple[str, str]]
) -> dict[int | str, dict[str, Any]]:
    """``responses`` for a route decorator: the ``status`` response links ``$response.body#pointer`` to the
    ``parameter`` of each target, ``{link name: (method, path)}``.

    >>> r = links(201, "made", "game_id", "/id", {"GetGame": ("GET", "/v1/games/{game_id}")})
    >>> r[201]["links"]["GetGame"]
    {'operationRef': '#/paths/~1v1~1games~1{game_id}/get', 'parameters': {'game_id': '$response.body#/id'}}
    """
    return {
        status: {
            "description": description,
            "links": {
                name: {
                    "operationRef": _ref(method, path),
                    "parameters": {parameter: f"$response.body#{pointer}"},
                }
                for name, (method, path) in targets.items()
            },
        }
    }
