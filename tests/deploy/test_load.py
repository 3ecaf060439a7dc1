"""``make load``'s short version: bench/load.py against ``make run`` with 4 clients for 12 s.

No latency is asserted (the machine is shared and noisy); what must hold under load is that no request
fails on the server's side, that every route of the mix answers, that memory stays within generous bounds
and that a 2-ply hint through the gateway costs about the library's CPU.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
# looked up, not imported: importing locust patches the standard library for gevent
if importlib.util.find_spec("locust") is None or importlib.util.find_spec("psutil") is None:
    pytest.skip("locust and psutil are test dependencies (make setup)", allow_module_level=True)

ROUTES = {
    "POST /v1/legal-plays",
    "GET /v1/positions/{position}",
    "POST /v1/evaluate",
    "POST /v1/hint ply 0",
    "POST /v1/hint ply 2",
    "POST /v1/games",
    "POST /v1/games/{id}/actions",
    "GET /v1/games/{id}/events",
    "POST /v1/rollouts",
    "GET /v1/rollouts/{job_id}",
}
# RSS growth allowed over the short run: the evaluator's search caches fill (8 searches at most, each an
# LRU of 2^17 evaluations, ~32 MB: pulvezar.search.hint.searcher) and the allocators warm up; a leak of
# the mix's requests would grow without bound in the long runs of RESULTS.md, not be caught here
GROWTH_MB = {"gateway": 150, "evaluator": 400}


@pytest.fixture(scope="module")
def figures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("load") / "load.json"
    cmd = [sys.executable, "bench/load.py", "--clients", "4", "--duration", "12", "--cpu-hints", "6"]
    cmd += ["--json", str(out)]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=480)
    print(run.stdout[-4000:])
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    return dict(json.loads(out.read_text()))


def test_the_mix_gets_no_server_error_and_every_route_answers(figures: dict[str, Any]) -> None:
    (mix,) = figures["mixes"]
    assert mix["server_errors"] == 0, mix["routes"]
    assert mix["rate_limited"] == 0, "the load key's limits are meant to be out of reach"
    answered = {name for name, r in mix["routes"].items() if any(c.startswith("2") for c in r["statuses"])}
    assert not ROUTES - answered, f"no 2xx from {sorted(ROUTES - answered)}"


def test_memory_stays_within_bounds(figures: dict[str, Any]) -> None:
    (mix,) = figures["mixes"]
    for name, growth in GROWTH_MB.items():
        start, end = mix["rss_mb_start"][name], mix["rss_mb_end"][name]
        assert start > 0 and end - start <= growth, (name, start, end)


def test_a_2_ply_hint_through_the_gateway_costs_about_the_library_cpu(figures: dict[str, Any]) -> None:
    """The gateway's and the evaluator's CPU seconds per 2-ply hint against the library's for the same hints
    (bench/RESULTS.md, "Issue 40: load", has 30-hint figures near 1.0; the platform's promise is 1.25x).
    Only 3x is asserted: CPU time is much less noisy than wall time, but six hints on a shared 2-core
    machine still move by tens of percent (other processes' cache pressure, frequency changes)."""
    c = figures["cpu"]
    print(
        f"2-ply hint CPU: gateway+evaluator {c['deployed_cpu_per_hint_s'] * 1e3:.0f} ms, library "
        f"{c['library_cpu_per_hint_s'] * 1e3:.0f} ms: {c['ratio']:.2f}x; {c['concurrency']} at a time "
        f"{c['concurrent_ratio']:.2f}x"
    )
    assert c["library_cpu_per_hint_s"] > 0
    assert c["ratio"] <= 3.0 and c["concurrent_ratio"] <= 3.0, c
