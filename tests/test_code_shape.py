"""The shape issue 42 set for the services: no router module over 300 lines and no function over 80, so that
routes stay translations and logic stays in small functions of the layer below (the generated gRPC stubs and
the store's migrations excepted)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVICES = ROOT / "services"
MAX_ROUTER_LINES = 300
MAX_FUNCTION_LINES = 80


def _modules() -> list[Path]:
    skip = ("pulvezar_proto", "migrations")
    return [p for p in sorted(SERVICES.rglob("*.py")) if not any(s in p.parts for s in skip)]


def test_routers_are_short() -> None:
    routers = sorted((SERVICES / "gateway" / "routers").glob("*.py"))
    assert len(routers) > 10
    long = {
        p.name: n
        for p in routers
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_ROUTER_LINES
    }
    assert not long, f"router modules over {MAX_ROUTER_LINES} lines: {long}"


def test_functions_are_short() -> None:
    long: list[str] = []
    modules = _modules()
    assert len(modules) > 100
    for path in modules:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"
