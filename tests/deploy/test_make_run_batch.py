"""Issue 45: a stream of 100 matches analysed as one batch job on the platform ``make run`` brings up.

The check runs in tests/deploy/test_make_run.py (``test_a_stream_of_100_matches_on_the_restarted_platform``),
on the platform that module's rollout test starts again (the daily puzzles off at that start, so the worker
is the job's; the parse's wall-clock cap at 120 s): one platform start fewer in the suite.  It POSTs the
committed ``selfplay-100x1p.ogxms.zst`` (100 distinct 1-point gnubg self-play matches,
tests/formats/data/ogxm/README.md) to ``/v1/analyses`` as ``file_base64`` at 0 ply: all 100 matches done,
nothing failed or skipped, both players' batch summaries, and ``results.csv`` with one row per match and
player.
"""

from __future__ import annotations

import base64
import csv
import io
import time
import urllib.request
from pathlib import Path

from test_make_run import Platform

STREAM = Path(__file__).resolve().parents[1] / "formats" / "data" / "ogxm" / "selfplay-100x1p.ogxms.zst"


def download(platform: Platform, path: str) -> str:
    req = urllib.request.Request(platform.url + path, headers={"X-API-Key": "local-dev-key"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return str(r.read().decode())


def check_stream_of_100(platform: Platform) -> None:
    """The 100-match stream at 0 ply as one batch job on ``platform``, and its report."""
    body = {"file_base64": base64.b64encode(STREAM.read_bytes()).decode(), "filename": STREAM.name}
    job = platform.call("POST", "/v1/analyses", {**body, "level": "0ply"})
    href = str(job["href"])
    assert len(job["matches"]) == 100, job  # type: ignore[arg-type]
    end = time.monotonic() + 600
    while (status := platform.call("GET", f"{href}?games=false"))["state"] not in ("done", "failed"):
        assert status["state"] != "cancelled" and time.monotonic() < end, status
        time.sleep(0.5)
    assert status["state"] == "done", status
    report = platform.call("GET", href)
    matches = report["matches"]
    assert isinstance(matches, list) and len(matches) == 100
    assert all(m["state"] == "done" and m["summary"] for m in matches)
    assert len({m["digest"] for m in matches}) == 100  # 100 distinct members
    streams = report["streams"]
    assert isinstance(streams, list) and len(streams) == 1
    assert streams[0]["matches"] == 100 and not streams[0]["skipped"] and streams[0]["truncated"] is None
    players = {p["name"]: p for p in report["players"]}  # type: ignore[union-attr]
    assert set(players) == {"gnubg-a", "gnubg-b"}
    for p in players.values():
        assert len(p["matches"]) == 100 and p["decisions"] > 0 and p["pr"] is not None
    rows = list(csv.DictReader(io.StringIO(download(platform, f"{href}/results.csv"))))
    assert len(rows) == 200
    assert {(r["match"], r["side"]) for r in rows} == {(str(m["match"]), s) for m in matches for s in "01"}
