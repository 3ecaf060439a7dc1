"""Match equity: the Kazaross-XG2 data against GNU Backgammon's copy, invariants,
take points and gammon prices, the Tavla table and the ``met`` sub-command."""

from __future__ import annotations

import argparse
import itertools
import json
import re
from pathlib import Path

import pytest

from pulvezar.cli.met import add_parser
from pulvezar.errors import PulvezarError
from pulvezar.met import MatchEquity, money_gammon_price, money_take_point, tavla_table

GNUBG_MET = Path("/usr/share/gnubg/met/Kazaross-XG2.xml")
DATA = Path(__file__).parents[2] / "libs/pulvezar/met/data/kazaross_xg2.json"
N = 25


@pytest.fixture(scope="module")
def met() -> MatchEquity:
    return MatchEquity.kazaross_xg2()


def _gnubg_tables() -> tuple[list[list[str]], list[str]]:
    text = GNUBG_MET.read_text(encoding="utf-8")
    pre = text.split("<pre-crawford-table")[1].split("</pre-crawford-table>")[0]
    post = text.split("<post-crawford-table")[1].split("</post-crawford-table>")[0]
    me = re.compile(r"<me>\s*([0-9.]+)\s*</me>")
    return [me.findall(row) for row in pre.split("<row>")[1:]], me.findall(post)


@pytest.mark.oracle
@pytest.mark.skipif(not GNUBG_MET.exists(), reason="GNU Backgammon's met/Kazaross-XG2.xml is not installed")
def test_data_agrees_with_gnubg_installed_copy() -> None:
    g_pre, g_post = _gnubg_tables()
    ours = json.loads(DATA.read_text(encoding="utf-8"), parse_float=str)
    assert len(g_pre) == N and all(len(r) == N for r in g_pre) and len(g_post) == N
    diffs = [
        (str(i + 1), str(j + 1), ours["pre_crawford"][i][j], g_pre[i][j])
        for i in range(N)
        for j in range(N)
        if float(ours["pre_crawford"][i][j]) != float(g_pre[i][j])
    ]
    diffs += [
        (str(n + 1), "post", a, b)
        for n, (a, b) in enumerate(zip(ours["post_crawford"], g_post, strict=True))
        if float(a) != float(b)
    ]
    assert diffs == []
    # same published digits too (up to trailing zeros)
    assert all(
        ours["pre_crawford"][i][j].rstrip("0") == g_pre[i][j].rstrip("0") for i in range(N) for j in range(N)
    )


# Tore Fredriksen's transcription of the bkgm.com article, 7 x 7, in percent: a check
# independent of GNU Backgammon's file.
BKGM_7 = [
    [50.000, 67.736, 75.076, 81.436, 84.179, 88.731, 90.724],
    [32.264, 50.000, 59.947, 66.870, 74.359, 79.940, 84.225],
    [24.924, 40.053, 50.000, 57.150, 64.795, 71.123, 76.209],
    [18.564, 33.130, 42.850, 50.000, 57.732, 64.285, 69.924],
    [15.821, 25.641, 35.205, 42.268, 50.000, 56.635, 62.638],
    [11.269, 20.060, 28.877, 35.715, 43.365, 50.000, 56.261],
    [9.276, 15.775, 23.791, 30.076, 37.362, 43.739, 50.000],
]


def test_corner_agrees_with_bkgm_publication(met: MatchEquity) -> None:
    for a in range(1, 8):
        for b in range(1, 8):
            assert met.mwc(a, b) == pytest.approx(BKGM_7[a - 1][b - 1] / 100, abs=5e-7)


@pytest.mark.parametrize("table", ["xg2", "tavla"])
def test_invariants(met: MatchEquity, table: str) -> None:
    t = met if table == "xg2" else MatchEquity.tavla()
    for a in range(1, N + 1):
        assert t.mwc(a, a) == pytest.approx(0.5, abs=1e-12)
        for b in range(1, N + 1):
            x = t.mwc(a, b)
            assert 0.0 < x < 1.0
            assert x + t.mwc(b, a) == pytest.approx(1.0, abs=1.5e-6)  # published to 5-6 decimals
            if b < N:
                assert t.mwc(a, b + 1) > x  # the opponent needing more helps me
            if a < N:
                assert t.mwc(a + 1, b) < x


def test_won_lost_and_bounds(met: MatchEquity) -> None:
    assert met.mwc(0, 3) == 1.0 and met.mwc(-2, 3) == 1.0
    assert met.mwc(3, 0) == 0.0 and met.mwc(3, -1) == 0.0
    with pytest.raises(PulvezarError):
        met.mwc(0, 0)
    with pytest.raises(PulvezarError):
        met.mwc(26, 3)
    with pytest.raises(PulvezarError):
        met.mwc(3, 4, post_crawford=True)
    with pytest.raises(PulvezarError):
        met.mwc(1, 4, crawford=True, post_crawford=True)


def test_post_crawford_values(met: MatchEquity) -> None:
    assert met.mwc(1, 1, post_crawford=True) == 0.5
    assert met.mwc(2, 1, post_crawford=True) == 0.48803
    assert met.mwc(1, 2, post_crawford=True) == pytest.approx(1 - 0.48803)
    assert met.mwc(25, 1, post_crawford=True) == 0.00123
    post = [met.mwc(a, 1, post_crawford=True) for a in range(1, N + 1)]
    assert all(x >= y for x, y in itertools.pairwise(post))
    # the free drop makes even away scores nearly as good as the odd score below
    for a in range(2, N + 1, 2):
        assert post[a - 1] <= post[a - 2]
    # post-Crawford the trailer has the cube: better than in the Crawford game
    for a in range(2, N + 1):
        assert met.mwc(a, 1, post_crawford=True) > met.mwc(a, 1, crawford=True)


def test_take_points(met: MatchEquity) -> None:
    # 5-away 5-away, initial double: (D - L) / (W - L) from the table
    d, w, lo = met.mwc(5, 4), met.mwc(3, 5), met.mwc(5, 3)
    assert met.take_point(5, 5) == pytest.approx((d - lo) / (w - lo))
    # long, even matches approach the money take point
    assert abs(met.take_point(25, 25) - money_take_point()) < 0.03  # type: ignore[operator]
    # 2-away doubled by anyone to 4: all or nothing, the drop leaves 2-away vs (b-2)
    assert met.take_point(2, 4, 2) == pytest.approx(0.5)
    # no cube in the Crawford game; the leader's take post-Crawford
    assert met.take_point(3, 1) is None and met.take_point(1, 3, crawford=True) is None
    tp = met.take_point(1, 3, post_crawford=True)
    assert tp == pytest.approx((1 - 0.48803 - 0.5) / (1 - 0.5))
    with pytest.raises(PulvezarError):
        met.take_point(5, 5, 3)


def test_gammon_prices(met: MatchEquity) -> None:
    gp = met.gammon_price(5, 5, 1)
    w1, w2, l1, l2 = met.mwc(4, 5), met.mwc(3, 5), met.mwc(5, 4), met.mwc(5, 3)
    assert gp.me == pytest.approx((w2 - w1) / (w1 - l1)) and gp.opp == pytest.approx((l1 - l2) / (w1 - l1))
    assert gp.me == pytest.approx(gp.opp)  # symmetric score
    # a single win already wins the match: my gammons are worth nothing
    assert met.gammon_price(2, 5, 2).me == 0.0
    # long even matches approach money play's 0.5
    assert abs(met.gammon_price(25, 25).me - money_gammon_price()) < 0.1


def test_summary_card_and_money(met: MatchEquity) -> None:
    s = met.summary(7, 2, 4)
    assert (s.away_me, s.away_opp, s.mwc) == (5, 3, met.mwc(5, 3))
    assert s.take_point == met.take_point(5, 3) and s.gammon_price == met.gammon_price(5, 3, 2)
    c = met.summary(5, 2, 4)
    assert c.crawford and c.take_point is None and any("Crawford" in n for n in c.notes)
    p = met.summary(5, 2, 4, crawford=False)
    assert p.post_crawford and p.mwc == met.mwc(3, 1, post_crawford=True)
    m = met.summary(0, 0, 0)
    assert m.take_point == 0.25 and m.gammon_price is not None and m.gammon_price.me == 0.5 and m.mwc is None
    with pytest.raises(PulvezarError):
        met.summary(7, 7, 0)


def test_tavla_table_recursion() -> None:
    g = 0.3
    t = MatchEquity.tavla(gammon_rate=g)
    assert not t.has_cube and t.take_point(3, 3) is None
    for a, b in [(2, 3), (5, 4), (7, 11)]:
        want = (1 - g) / 2 * (t.mwc(a - 1, b) + t.mwc(a, b - 1)) + g / 2 * (t.mwc(a - 2, b) + t.mwc(a, b - 2))
        assert t.mwc(a, b) == pytest.approx(want, abs=1e-12)
    assert t.mwc(2, 1) == pytest.approx((1 - g) / 2 * 0.5 + g / 2)
    # without mars: a race of fair games with closed forms
    nomars = tavla_table(4, 0.0)
    assert nomars[0][1] == pytest.approx(0.75) and nomars[1][1] == pytest.approx(0.5)
    assert nomars[0][3] == pytest.approx(1 - 0.5**4)
    # mars price at even scores: a mars is worth more when it wins the match
    assert t.gammon_price(2, 5).me == pytest.approx((1 - t.mwc(1, 5)) / (t.mwc(1, 5) - t.mwc(2, 4)))
    with pytest.raises(PulvezarError):
        tavla_table(5, 1.5)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    parser = argparse.ArgumentParser(prog="pulvezar")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["met", *argv])
    assert args.func(args) == 0
    return capsys.readouterr().out


def test_cli_table_marks_score(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "--length", "7", "--score", "2", "4")
    assert "[ 35.2]" in out and "Match-winning chance: 35.2 %" in out
    assert "Take point" in out and "Gammon price at cube 2" in out
    row5 = next(line for line in out.splitlines() if line.startswith("   5 "))
    assert "[ 35.2]" in row5 and out.count("[") == 1


def test_cli_json_tavla_and_money(capsys: pytest.CaptureFixture[str]) -> None:
    out = json.loads(_run(capsys, "--length", "5", "--score", "1", "3", "--cube", "2", "--json"))
    assert out["away"] == [4, 2] and out["cube"] == 2 and out["gammon_price_cube"] == 4
    assert len(out["rows"]) == 5 and out["mwc"] == 0.3313
    t = json.loads(_run(capsys, "--length", "9", "--score", "0", "0", "--rules", "tavla", "--json"))
    assert t["take_point"] is None and t["mwc"] == 0.5 and t["post_crawford_trailer"] is None
    assert "money play" in _run(capsys, "--length", "0")
    with pytest.raises(PulvezarError):
        _run(capsys, "--length", "7", "--gammon-rate", "0.2")
