"""bench/gpu.py runs unchanged on a machine without an accelerator: its code path, on the CPU."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "gpu.py"


def test_the_gpu_benchmark_runs_on_the_cpu(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("gpu_bench", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = tmp_path / "gpu.json"
    args = [
        "--device",
        "cpu",
        "--batches",
        "64,256",
        "--seconds",
        "0.01",
        "--trials",
        "24",
        "--json",
        str(out),
    ]
    assert bench.main(args) == 0
    result = json.loads(out.read_text())
    assert result["device"] == "cpu"
    assert set(result["evaluations"]) >= {"64", "256", "cpu float kernel", "cpu quantised kernel"}
    assert all(v["forward_per_s"] > 0 for k, v in result["evaluations"].items() if k.isdigit())
    assert result["rollout"]["trials"] == 24 and -3.0 < result["rollout"]["equity"] < 3.0
    assert "no accelerator" in capsys.readouterr().out
