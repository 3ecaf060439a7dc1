"""``make load``'s short version against ``make run`` (bench/load.py, 4 clients for 12 s), then
schemathesis's stateful phase against the same running platform.

No latency is asserted (the machine is shared and noisy); what must hold under load is that no request
fails on the server's side, that every route of the mix answers, that memory stays within generous bounds
and that a 2-ply hint through the gateway costs about the library's CPU.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_make_run import free_ports  # the same tests folder: its helper, not a copy

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


KEY = "load-key"
KEY_LIMITS = {"rate_per_s": 100_000, "burst": 100_000, "daily_jobs": 1_000_000, "max_running_jobs": 10_000}


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, str]]:
    """``make run`` (deploy/local/run.py) on free ports with the load key: (run.py's pid, gateway URL)."""
    redis, rules, evaluator, gateway = free_ports(4)
    run_dir = tmp_path_factory.mktemp("load-run")
    cmd = [sys.executable, "deploy/local/run.py", "--run-dir", str(run_dir), "--device", "cpu", "--any-ports"]
    cmd += ["--redis-port", str(redis), "--rules-port", str(rules), "--evaluator-port", str(evaluator)]
    cmd += ["--gateway-port", str(gateway)]
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "PULVEZAR_GATEWAY_API_KEYS": json.dumps({KEY: KEY_LIMITS}),
        "PULVEZAR_DAILY_ON_START": "0",
    }
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    lines: list[str] = []
    up = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("pulvezar is up"):
                up.set()
        up.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        if not up.wait(300) or proc.poll() is not None:
            pytest.fail("make run did not come up:\n" + "".join(lines[-40:]))
        yield proc.pid, f"http://127.0.0.1:{gateway}"
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def figures(platform: tuple[int, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    pid, url = platform
    out = tmp_path_factory.mktemp("load") / "load.json"
    cmd = [sys.executable, "bench/load.py", "--url", url, "--key", KEY, "--attach", str(pid)]
    cmd += ["--clients", "4", "--duration", "12", "--json", str(out)]
    # two hints at a time: as many as the evaluator searches at once (ANALYSIS_WORKERS), so that none waits
    # in its queue toward the gateway's 10-s deadline on a machine busy with the rest of the suite
    cmd += ["--cpu-hints", "24", "--cpu-concurrency", "2"]
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
    (bench/RESULTS.md, "Issue 40: load", has 30-hint figures near 1.0 for the unpruned search; the platform's
    promise is 1.25x).  Since the pruned search became the default (issue 41) a 2-ply hint costs the library
    10-13 ms, and the platform's own 10-12 ms a request (HTTP, JSON, gRPC) shows: 1.9-2.0x here.  Only 3x is
    asserted: CPU time is read in 10-ms ticks and moves with other processes on a shared 2-core machine, so
    24 hints are timed (six were within a tick of the bound)."""
    c = figures["cpu"]
    print(
        f"2-ply hint CPU: gateway+evaluator {c['deployed_cpu_per_hint_s'] * 1e3:.0f} ms, library "
        f"{c['library_cpu_per_hint_s'] * 1e3:.0f} ms: {c['ratio']:.2f}x; {c['concurrency']} at a time "
        f"{c['concurrent_ratio']:.2f}x"
    )
    assert c["library_cpu_per_hint_s"] > 0
    assert c["ratio"] <= 3.0 and c["concurrent_ratio"] <= 3.0, c


def test_schemathesis_stateful_links_find_no_server_errors(platform: tuple[int, str], tmp_path: Path) -> None:
    """Schemathesis's stateful phase over HTTP against ``make run``: sequences of calls that follow the
    links between operations (inferred from the spec, and those it declares: a created job, game or
    match read, listed, cancelled...), bounded examples: never a 5xx.  The other phases run against the
    gateway in tests/services/test_gateway.py and test_e2e_analyses.py; bench/RESULTS.md has the full run."""
    st = shutil.which("schemathesis", path=str(Path(sys.executable).parent)) or shutil.which("st")
    if st is None:
        pytest.skip("schemathesis is not installed")
    _, url = platform
    cmd = [
        st, "run", f"{url}/openapi.json",
        "--checks", "not_a_server_error",
        "--header", f"X-API-Key: {KEY}",
        "--phases", "stateful",
        "--max-examples", "10",
        "--seed", "20261206",
        "--request-timeout", "60",
        "--workers", "1",  # CPython 3.11.7's ast is not thread-safe ("AST constructor recursion depth")
        "--suppress-health-check", "all",
        # a valid deep analysis or book is minutes of the workers' time; an event stream stays open while its
        # game or job goes on (tests/services/test_event_streams.py and the load mix read them)
        "--exclude-path-regex", "deep-analyses|opening-book/jobs|/events$",
        "--report", "junit", "--report-dir", str(tmp_path),
    ]  # fmt: skip
    env = {**os.environ, "SCHEMATHESIS_HOOKS": ""}
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    print(out.stdout[-3000:])
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
    assert "Stateful" in out.stdout and "API Links" in out.stdout, out.stdout[-3000:]
