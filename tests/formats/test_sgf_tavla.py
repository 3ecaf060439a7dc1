"""Tavla matches as SGF (issue 44): written with ``RU[Tavla...]`` and a comment that GNU Backgammon cannot
read them, and read back by our own reader action for action. The matches are played by the library's bot
(the shipped net, easy) against random legal actions, under each of the four Tavla rule sets."""

from __future__ import annotations

import random
from typing import Any

import pytest

from pulvezar.eval.evaluator import NetEvaluator, default_evaluator
from pulvezar.formats import GameRecord, MatchRecord
from pulvezar.formats.sgf import TAVLA_NOTE, parse_sgf, read_sgf, write_sgf
from pulvezar.play import GameSettings, PlaySession
from pulvezar.rules.rules import Rules

RULE_SETS = [(False, False), (True, False), (False, True), (True, True)]  # hit_and_stop, must_bear_off


@pytest.fixture(scope="module")
def net() -> NetEvaluator:
    return default_evaluator()


def played(net: NetEvaluator, hit_and_stop: bool, must_bear_off: bool, seed: int) -> MatchRecord:
    """A 3-point Tavla match to its end: the bot against random legal actions (now and then a resignation)."""
    rules = {"variant": "tavla", "hit_and_stop": hit_and_stop, "must_bear_off": must_bear_off}
    settings = GameSettings.from_dict({"rules": rules, "match_length": 3, "bot": {"level": "easy"}})
    s = PlaySession(settings, evaluator=net, trainer_ply=0, bot_seed=seed, seed=bytes([seed]) * 32)
    rng = random.Random(seed)
    for _ in range(3000):
        st: dict[str, Any] = s.state()
        if st["status"] == "finished":
            break
        acts = [a for a in st["actions"] if a != "resign" or rng.random() < 0.05]
        name = rng.choice(acts)
        action: dict[str, Any] = {"action": name}
        if name == "play":
            action["position_id"] = rng.choice(st["legal_plays"])["position_id"]
        elif name == "resign":
            action["level"] = rng.choice(st["resign_levels"])
        s.apply(action)
    assert s.state()["status"] == "finished"
    return s.to_record(("Ayşe", "pulvezar"))


def moves(g: GameRecord) -> list[tuple[object, ...]]:
    return [(a.player, a.kind, a.dice, a.notation, a.value) for a in g.actions]


@pytest.mark.parametrize(("hit_and_stop", "must_bear_off"), RULE_SETS)
def test_tavla_matches_read_back_the_same(net: NetEvaluator, hit_and_stop: bool, must_bear_off: bool) -> None:
    for seed in (1, 2):
        record = played(net, hit_and_stop, must_bear_off, seed)
        text = write_sgf(record)
        root = parse_sgf(text)[0].nodes[0].props
        assert root["C"][0].startswith(TAVLA_NOTE) and "GNU Backgammon cannot read Tavla" in root["C"][0]
        options = [o for o, on in (("HitAndStop", hit_and_stop), ("MustBearOff", must_bear_off)) if on]
        assert root["RU"] == [":".join(["Tavla", *options])]
        back = read_sgf(text)
        assert back.rules == Rules.tavla(hit_and_stop, must_bear_off) == record.rules
        assert back.cut_games == 0 and not [n for g in back.games for n in g.notes], text[:400]
        assert (back.length, back.players, len(back.games)) == (3, ("Ayşe", "pulvezar"), len(record.games))
        for a, b in zip(back.games, record.games, strict=True):
            assert moves(a) == moves(b) and (a.winner, a.points, a.score) == (b.winner, b.points, b.score)
        assert "C" not in back.tags  # the note is the writer's, not the match's
        assert write_sgf(back) == text  # and written again the same


def test_a_match_comment_stays_beside_the_note(net: NetEvaluator) -> None:
    record = played(net, False, True, 3)
    record.tags["C"] = "Kahvede, 3 sayılık maç"
    text = write_sgf(record)
    assert parse_sgf(text)[0].nodes[0].props["C"] == [f"{TAVLA_NOTE}\n\nKahvede, 3 sayılık maç"]
    back = read_sgf(text)
    assert back.tags["C"] == "Kahvede, 3 sayılık maç" and back.rules == Rules.tavla(must_bear_off=True)


def test_an_international_match_has_no_tavla_note() -> None:
    rec = read_sgf(
        "(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[A]PB[B]RU[Crawford]RE[B+1];B[31qtst];W[double];B[drop])"
    )
    assert rec.rules == Rules.international()
    text = write_sgf(rec)
    assert "Tavla" not in text and "C[" not in text and "RU[Crawford]" in text
