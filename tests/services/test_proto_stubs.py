"""The committed stubs under services/common/pulvezar_proto/v1 are what proto/generate.sh makes now."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "services" / "common" / "pulvezar_proto" / "v1"


def test_committed_stubs_are_fresh(tmp_path: Path) -> None:
    out = tmp_path / "v1"
    run = subprocess.run(
        ["bash", str(ROOT / "proto" / "generate.sh"), str(out)],
        env={"PYTHON": sys.executable, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    fresh = {p.name: p.read_bytes() for p in out.iterdir()}
    committed = {p.name: p.read_bytes() for p in COMMITTED.iterdir() if p.is_file()}
    stale = sorted(name for name in fresh.keys() | committed.keys() if fresh.get(name) != committed.get(name))
    assert not stale, f"stale or extra stubs {stale}: run proto/generate.sh and commit the result"


def test_stubs_import_next_to_the_engine_library() -> None:
    sys.path.insert(0, str(ROOT))
    import pulvezar
    from services.common.pulvezar_proto.v1 import evaluator_pb2, rules_pb2

    assert rules_pb2.DESCRIPTOR.package == evaluator_pb2.DESCRIPTOR.package == "pulvezar.v1"
    assert hasattr(pulvezar, "Position")  # the stubs do not shadow the library
