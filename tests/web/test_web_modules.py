"""The web client's module structure, read from its sources (no browser): docs/web.md's import rule.

The views (``views/*.js``) import neither ``app.js`` (the entry, which wires the routes to the views) nor
one another: what they share is in ``ui.js`` (the element builder ``h``, formatters, IDs, error texts) and
``shell.js`` (the address, the toast).  ``h`` is defined once, in ``ui.js``; no module imports ``app.js``;
each view is split into small functions, one per panel or section.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "services" / "gateway" / "web"
VIEWS = WEB / "views"
#: a view's top-level functions stay well under the ~120 lines the issue allowed
MAX_FUNCTION_LINES = 100

# import ... from "x"; import "x"; export ... from "x"; import("x")
IMPORT = re.compile(
    r"""(?:^|;)\s*(?:import|export)\s+(?:[\w*{}\s,$]+\s+from\s+)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)""",
    re.MULTILINE,
)
# function h(, const h =, let h =, var h =, h = function / arrow
DEFINES_H = re.compile(r"\bfunction\s+h\s*\(|\b(?:const|let|var)\s+h\s*=|^\s*h\s*=", re.MULTILINE)


def modules() -> list[Path]:
    return sorted(WEB.rglob("*.js"))


def imports(path: Path) -> set[Path]:
    """The modules a module imports (statically or with import()), resolved to files."""
    text = path.read_text(encoding="utf-8")
    specs = {a or b for a, b in IMPORT.findall(text)}
    return {(path.parent / s).resolve() for s in specs if s.startswith(".")}


def test_the_import_rule_finds_imports() -> None:
    # the rule below means something: app.js imports the views (with import()) and the shell
    found = imports(WEB / "app.js")
    assert (VIEWS / "position.js").resolve() in found
    assert (WEB / "shell.js").resolve() in found


@pytest.mark.parametrize("view", sorted(p.name for p in VIEWS.glob("*.js")))
def test_a_view_imports_neither_app_js_nor_another_view(view: str) -> None:
    found = imports(VIEWS / view)
    assert (WEB / "app.js").resolve() not in found, f"{view} imports app.js: use shell.js"
    others = sorted(p.name for p in found if p.parent == VIEWS.resolve())
    assert not others, f"{view} imports the views {others}: move what they share into ui.js"
    assert (WEB / "ui.js").resolve() in found


def test_no_module_imports_app_js() -> None:
    assert [p.name for p in modules() if (WEB / "app.js").resolve() in imports(p)] == []


def test_h_is_defined_only_in_ui_js() -> None:
    defining = [str(p.relative_to(WEB)) for p in modules() if DEFINES_H.search(p.read_text(encoding="utf-8"))]
    assert defining == ["ui.js"]


@pytest.mark.parametrize("view", sorted(p.name for p in VIEWS.glob("*.js")))
def test_a_views_functions_are_small(view: str) -> None:
    # top-level functions and classes start in column 0 and end with a "}" in column 0
    lines = (VIEWS / view).read_text(encoding="utf-8").splitlines()
    start = re.compile(r"^(?:export\s+)?(?:async\s+)?(?:function\b|class\b)")
    long, open_at = [], None
    for i, line in enumerate(lines):
        if open_at is None and start.match(line) and not line.rstrip().endswith("}"):
            open_at = i
        elif open_at is not None and line.startswith("}"):
            if i - open_at + 1 > MAX_FUNCTION_LINES:
                long.append(f"{lines[open_at][:60]} ({i - open_at + 1} lines)")
            open_at = None
    assert open_at is None, f"{view}: a function without its end"
    assert not long, f"{view}: split these into one function per panel: {long}"
