"""Issue 45 in the browser: a stream of matches analysed as one batch job (the per-player table, the
skipped and truncated parts with their reasons, the CSV and JSON-lines downloads, each match opened as a
single analysis), and a position opened by its OGID showing its IDs (Position ID, XGID, OGID) with copy.

The stream is made here with :func:`pulvezar.formats.ogxm.write_ogxm_stream` from two test matches
(tests/formats/data, see SOURCES.md): a 1-game 1-point match and a 4-game 7-point match, then a member cut
in half (the truncated tail).  Analysed at 0 ply.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

DATA = Path(__file__).resolve().parents[1] / "formats" / "data"
TINY = DATA / "gnubg_roll_then_resign_1p.mat"  # charlot1 - charlot2, 1 point, 1 game
CHARLOT = DATA / "charlot1-charlot2_7p_2025-11-08-2305.mat"  # the same players, 7 points, 4 games


def stream_file(tmp_path: Path) -> tuple[Path, int]:
    """The two matches as one ``.ogxms`` stream, with half a member after them; where that half starts."""
    pytest.importorskip("ogxm")
    from pulvezar.formats.files import read_match
    from pulvezar.formats.ogxm import write_ogxm, write_ogxm_stream

    out = io.BytesIO()
    for p in (TINY, CHARLOT):
        write_ogxm_stream([read_match(p)], out)
    tail = out.tell()
    member = write_ogxm(read_match(TINY))
    path = tmp_path / "db.ogxms"
    path.write_bytes(out.getvalue() + member[: len(member) // 2])
    return path, tail


def test_a_stream_is_one_batch_with_players_downloads_and_matches(page: Any, tmp_path: Path) -> None:
    path, tail = stream_file(tmp_path)
    page.goto("/?view=analysis")
    accept = page.locator("#an-file").get_attribute("accept") or ""
    assert {".ogxms", ".ogxms.zst", ".zip"} <= set(accept.split(","))
    page.set_input_files("#an-file", str(path))
    page.select_option("#an-level", "0ply")
    page.click("#an-submit")
    batch = page.locator("#an-batch")
    expect(batch).to_be_visible(timeout=90_000)
    expect(page.locator("#an-batch-progress")).to_contain_text("2 of 2 matches")
    expect(page.locator("#an-status")).to_contain_text("2 of 2 matches")

    # the players across both matches: each plays in 2, their decisions summed
    table = page.locator("#an-batch-players")
    expect(table.locator("tbody tr")).to_have_count(2)
    for name in ("charlot1", "charlot2"):
        cells = table.locator(f"tbody tr[data-player='{name}'] td")
        expect(cells).to_have_count(6)
        assert cells.nth(0).inner_text() == "2"
        assert int(cells.nth(1).inner_text()) > 0
    # the truncated tail, with where and why
    expect(page.locator("#an-streams .an-truncated")).to_contain_text(f"byte {tail}")
    expect(page.locator("#an-streams .an-truncated")).to_contain_text("ends inside a member")
    expect(page.locator("#an-streams")).to_contain_text("db.ogxms: 2 matches")

    # the downloads: a row per player and match in the CSV, a line per match in the JSON lines
    with page.expect_download() as info:
        page.click("#an-results-csv")
    rows = list(csv.DictReader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    assert info.value.suggested_filename.endswith("-results.csv") and len(rows) == 4
    assert {r["player"] for r in rows} == {"charlot1", "charlot2"}
    with page.expect_download() as info:
        page.click("#an-results-jsonl")
    lines = [json.loads(x) for x in Path(info.value.path()).read_text(encoding="utf-8").splitlines()]
    assert [x["match"] for x in lines] == [0, 1]

    # each match opens as a single analysis: its players' table, its games on the graph
    page.locator("#an-batch-matches li[data-match='1'] button.an-open-match").click()
    expect(page.locator("#an-match-select")).to_have_value("1")
    expect(page.locator("#an-match")).to_contain_text("charlot1 – charlot2, 7-point match")
    expect(page.locator("#an-players tr[data-row=pr] td")).to_have_count(2)
    expect(page.locator("svg.an-graph .an-game-label")).to_have_count(4)
    page.select_option("#lang", "de")
    expect(page.locator("#an-batch-players")).to_contain_text("Patzer")


def test_a_position_opened_by_its_ogid_shows_its_ids(page: Any) -> None:
    from pulvezar import Position
    from pulvezar.rules.ogid import to_ogid

    ogid = to_ogid(Position.start(), dice=(3, 1))
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto("/?position=" + quote(ogid, safe=""))
    ids = page.locator("#pos-ids")
    expect(ids.locator("[data-id=ogid] .id-value")).to_have_text(ogid)
    expect(ids.locator("[data-id=position_id] .id-value")).to_have_text("4HPwATDgc/ABMA")
    expect(ids.locator("[data-id=xgid] .id-value")).to_contain_text("XGID=")
    ids.locator("[data-id=ogid] button.copy-id").click()
    expect(page.locator("#toast")).to_contain_text(ogid)
    assert page.evaluate("navigator.clipboard.readText()") == ogid
    # the board changed: the loaded ID's other forms no longer describe it, its Position ID does
    page.locator("details.editor summary").click()
    page.get_by_role("button", name="Clear board").click()
    expect(ids.locator("[data-id=ogid]")).to_have_count(0)
    expect(ids.locator("[data-id=position_id] .id-value")).not_to_have_text("4HPwATDgc/ABMA")
