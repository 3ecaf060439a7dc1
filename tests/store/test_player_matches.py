"""A player's analysed matches in the durable store (issue 29): folded once into the record, the blunders
made into cards that judge their own answer, the archive listed, the weekly plan kept for its week."""

from __future__ import annotations

import time
from functools import cache
from pathlib import Path
from typing import Any

from pulvezar.analysis.decisions import BLUNDER
from pulvezar.analysis.match import AnalysisSettings, MatchAnalysis, analyse_match
from pulvezar.archive.attempts import judge
from pulvezar.formats import read_mat
from pulvezar.play.progress import MIN_PLAN_DECISIONS, monday
from services.store.cards import Cards, add_card
from services.store.player_matches import PlayerMatches, record_analysis
from services.store.players import PlayerRecords

# a 1-point match of one game between two people (FIBS, as gnubg exported it)
MATCH = Path(__file__).resolve().parents[1] / "services" / "data" / "match1495872.txt"


@cache
def analysed() -> tuple[MatchAnalysis, dict[str, Any]]:
    ma = analyse_match(read_mat(MATCH.read_bytes()), AnalysisSettings.from_level("0ply"))
    summary = ma.to_json()
    summary.pop("games")
    return ma, summary


def side_with_blunders(ma: MatchAnalysis) -> tuple[int, list[Any]]:
    for side in (0, 1):
        found = [d for d in ma.decisions if d.player == side and d.counts and d.loss >= BLUNDER]
        if found:
            return side, found
    raise AssertionError("the match has no blunder at 0-ply")


def test_an_analysed_match_is_recorded_once_with_cards_of_its_blunders(store_url: str) -> None:
    players = PlayerRecords(store_url)
    p = players.create("k1", "Lasse")
    ma, summary = analysed()
    side, blunders = side_with_blunders(ma)
    learner = {"player": p.id, "sides": [side], "game_id": None, "filenames": {"0": MATCH.name}}
    assert record_analysis(store_url, learner, "job1", 0, list(ma.games), summary) is True
    first = players.statistics("k1", p.id)
    assert record_analysis(store_url, learner, "job1", 0, list(ma.games), summary) is False  # a retry
    assert players.statistics("k1", p.id) == first
    assert first is not None and first["analysed"]["matches"] == 1
    assert first["analysed"]["trend"][0][1:] == [summary["players"][side]["pr"], "job:job1:0"]
    mine = [d for d in ma.decisions if d.player == side and d.counts]
    assert sum(t["decisions"] for t in first["types"].values()) == len(mine)
    assert abs(sum(t["loss"] for t in first["types"].values()) - sum(d.loss for d in mine)) < 1e-9

    rows, _ = PlayerMatches(store_url).list("k1", p.id) or ([], None)
    assert [(m.source, m.ref, m.analysis, m.info["filename"]) for m in rows] == [
        ("import", "job:job1:0", "job1", MATCH.name)
    ]
    assert rows[0].info["opponent"] == ma.players[1 - side] and rows[0].pr == summary["players"][side]["pr"]
    assert PlayerMatches(store_url).list("k2", p.id) is None  # another key's player

    # one card per blunder, due today; each judges its own answer right and the played one wrong
    today = time.strftime("%Y-%m-%d", time.gmtime())
    cards = Cards(store_url).due("k1", p.id, today, 100) or []
    assert len(cards) == len(blunders)
    for card in cards:
        puzzle = card.puzzle
        assert card.due == today and card.source.startswith("job:job1:0:")
        if puzzle["kind"] == "position":
            assert judge(puzzle, {"notation": puzzle["answer"]["play"]}).correct
            wrong = judge(puzzle, {"notation": puzzle["played"]})
            assert not wrong.correct and abs(wrong.loss - puzzle["played_loss"]) < 1e-5
        else:
            answer = puzzle["answer"]
            assert judge(puzzle, {"double": answer["double"], "response": answer["response"]}).correct

    assert players.delete("k1", p.id)
    assert PlayerMatches(store_url).list("k1", p.id) is None


def test_the_weekly_plan_is_kept_for_its_week_and_counts_the_tasks(store_url: str) -> None:
    players = PlayerRecords(store_url)
    p = players.create("k1", "Ayşe")
    today = time.strftime("%Y-%m-%d", time.gmtime())
    empty = players.plan("k1", p.id, today)
    assert empty is not None and empty["areas"] == [] and str(MIN_PLAN_DECISIONS) in empty["reason"]
    assert empty["week"] == monday(today)
    assert players.plan("k2", p.id, today) is None

    # a week later with enough analysed decisions: a new plan of the two costliest areas
    ma, summary = analysed()
    side, _ = side_with_blunders(ma)
    learner = {"player": p.id, "sides": [side], "game_id": None}
    for n in range(8):  # the same match imported eight times is eight analysed matches
        record_analysis(store_url, learner, f"job{n}", 0, list(ma.games), summary)
    stats = players.statistics("k1", p.id) or {}
    big = sorted(
        ((t["loss"], k) for k, t in stats["types"].items() if t["decisions"] >= MIN_PLAN_DECISIONS),
        reverse=True,
    )
    assert players.plan("k1", p.id, today) == empty  # this week's plan stays
    import datetime as dt

    later = (dt.date.fromisoformat(today) + dt.timedelta(days=7)).isoformat()
    plan = players.plan("k1", p.id, later)
    assert plan is not None and plan["week"] == monday(later)
    assert [a["position_type"] for a in plan["areas"]] == [k for _, k in big[:2]]
    for area in plan["areas"]:
        assert [t["kind"] for t in area["tasks"]] == ["cards", "daily", "exercise", "lesson"]
        assert area["tasks"][0]["done"] == 0 and area["tasks"][1]["done"] == 0

    # a player whose plan is made after its analyses: a card of an area answered this week is counted
    q = players.create("k1", "Bob")
    for n in range(8):
        record_analysis(store_url, {**learner, "player": q.id}, f"job{n}", 0, list(ma.games), summary)
    plan = players.plan("k1", q.id, today)
    assert plan is not None and plan["areas"]
    kinds = [a["position_type"] for a in plan["areas"]]
    deck = Cards(store_url).due("k1", q.id, today, 100) or []
    card = next((c for c in deck if c.puzzle["position_type"]["kind"] in kinds), None)
    if card is None:  # the blunders were of other types: a card of the first area's type
        from services.store.db import session

        with session(store_url) as s:
            puzzle = {**deck[0].puzzle, "position_type": {"kind": kinds[0], "side": None, "plan": ""}}
            add_card(s, store_url, q.id, "by-hand:1", puzzle, today)
        card = next(c for c in Cards(store_url).due("k1", q.id, today, 100) or [] if c.source == "by-hand:1")
    Cards(store_url).answered("k1", q.id, card.id, True, today, lambda c: {})
    again = players.plan("k1", q.id, today) or {}
    area = next(a for a in again["areas"] if a["position_type"] == card.puzzle["position_type"]["kind"])
    assert area["tasks"][0]["done"] == 1

    # an exercise of the area's kind answered right, and its lesson completed, count this week
    from pulvezar.play.exercises import fold as fold_exercise
    from pulvezar.play.lessons import lesson
    from services.store.exercises import Exercises

    first = plan["areas"][0]
    kind, lesson_id = first["tasks"][2]["exercise"], first["tasks"][3]["lesson"]
    exercises = Exercises(store_url)
    for correct in (True, False):
        x = exercises.issue("k1", q.id, kind, {"kind": kind}, False)
        assert x is not None
        exercises.answered("k1", x, {"correct": correct}, lambda st, ok: fold_exercise(st, kind, ok))
    steps = len(lesson(lesson_id)["steps"])  # type: ignore[index]
    for n in range(steps):
        players.lesson_step("k1", q.id, lesson_id, n, steps)
    tasks = (players.plan("k1", q.id, today) or {})["areas"][0]["tasks"]
    assert (tasks[2]["done"], tasks[3]["done"]) == (1, 1)
