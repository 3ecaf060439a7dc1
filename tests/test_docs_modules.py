"""The architecture document and the services' READMEs describe the code as it is: every file, folder and
module they name exists (issue 42), so a rename or a removal that forgets the docs fails here."""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [
    *(ROOT / "docs" / name for name in ("architecture.md", "formats.md", "cli.md")),
    *sorted((ROOT / "services").glob("*/README.md")),
]
#: a path in the repository: services/jobs/kind.py, libs/pulvezar/eval/, proto/pulvezar/v1/...
PATH = re.compile(r"(?<![\w/.])((?:services|libs|proto|deploy|docker|k8s|bench|tests|docs)/[\w./-]*[\w/])")
#: a dotted module or attribute: pulvezar.search.plies, services.jobs.kind.JobKind
DOTTED = re.compile(r"(?<![\w./])((?:pulvezar|services)(?:\.[A-Za-z_]\w*)+)")


def _task_names() -> set[str]:
    """The Celery task names (``pulvezar.jobs.chunk``): dotted like modules, named in the docs as tasks."""
    broker = importlib.import_module("services.jobs.broker")
    return {v for k, v in vars(broker).items() if k.endswith("_TASK") and isinstance(v, str)}


def _code_spans(text: str) -> list[str]:
    """What the Markdown puts in backticks (names there are meant literally)."""
    return re.findall(r"`([^`\n]+)`", text)


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:
            found = False
        if found:
            obj: object = importlib.import_module(name)
            for attr in parts[i:]:
                if not hasattr(obj, attr):
                    return False
                obj = getattr(obj, attr)
            return True
    return False


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_named_paths_and_modules_exist(doc: Path) -> None:
    missing: list[str] = []
    named = 0
    tasks = _task_names()
    for span in _code_spans(doc.read_text(encoding="utf-8")):
        for path in PATH.findall(span):
            if "*" in path or "{" in path or "..." in path:
                continue
            named += 1
            if not (ROOT / path.rstrip("/")).exists():
                missing.append(path)
        for dotted in DOTTED.findall(span):
            named += 1
            if dotted not in tasks and not _resolves(dotted):
                missing.append(dotted)
    assert named > 0, f"{doc} names no module"
    assert not missing, f"{doc.relative_to(ROOT)} names what does not exist: {sorted(set(missing))}"
