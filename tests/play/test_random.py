"""Whole games and matches driven by random legal actions, with invariants in every state (OpenSpiel
style); illegal actions change nothing; a stored session continues identically."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from playkit import check_state, drive, random_action

from pulvezar.errors import PulvezarError
from pulvezar.play import ACTIONS, PlaySession, SessionError
from pulvezar.rules.position import Position

CONFIGS: dict[str, dict[str, Any]] = {
    "international-match": {"match_length": 5, "bot": {"level": "easy"}},
    "international-1pt": {"match_length": 1, "bot": {"level": "medium", "style": "cautious"}},
    "money": {
        "match_length": 0,
        "money": {"jacoby": True, "beaver": True, "raccoon": True, "automatic_doubles": 1},
        "bot": {"level": "easy", "style": "aggressive"},
    },
    "tavla": {"rules": {"variant": "tavla"}, "match_length": 3, "bot": {"level": "easy", "style": "runner"}},
    "tavla-options-client": {
        "rules": {"variant": "tavla", "hit_and_stop": True, "must_bear_off": True},
        "match_length": 3,
        "dice": "client",
        "auto_forced": True,
        "bot": {"level": "easy"},
    },
    "client-trainer": {"match_length": 3, "dice": "client", "trainer": True, "bot": {"level": "easy"}},
    "adaptive-clock": {
        "match_length": 3,
        "bot": {"level": "adaptive", "rating": 1300},
        "clock": {"enabled": True, "scope": "game"},
        "trainer": True,
    },
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_random_games_keep_the_invariants(name: str, make: Callable[..., PlaySession]) -> None:
    cfg = CONFIGS[name]
    clock = cfg.get("clock") is not None
    s = make(cfg, now=0.0 if clock else None)
    rng = random.Random(name)
    events = drive(s, rng, steps=600 if s.settings.is_money else 3000, now=0.0 if clock else None)
    kinds = Counter(e["type"] for e in events)
    for e in events:
        assert set(e) == {"type", "player", "details"} and e["player"] in (0, 1, None)
    json.dumps(events)
    if cfg.get("match_length", 1):
        assert s.status == "finished", kinds
        st = check_state(s)
        assert st["result"]["reason"] in ("match", "timeout")
        if st["result"]["reason"] == "match":
            assert max(st["score"]) >= cfg["match_length"]
    assert kinds["play"] > 0 and kinds["roll"] + kinds["opening"] > 0
    if cfg.get("rules", {}).get("variant") == "tavla":
        assert not {"double", "take", "drop", "beaver", "raccoon"} & set(kinds)


ILLEGAL: list[dict[str, Any]] = [
    {},
    {"action": 3},
    {"action": "castle"},
    {"action": "double", "level": "gammon"},
    {"action": "play", "notation": "bar/off"},  # never legal (25/1 is, with 6-6 from the bar)
    {"action": "play", "notation": "24/23/22/21/20/19"},
    {"action": "play", "notation": 83},
    {"action": "play"},
    {"action": "play", "position_id": "not-an-id"},
    {"action": "play", "position_id": Position.from_points({1: 15}, {1: 15}).position_id},
    {"action": "roll", "dice": [7, 1]},
    {"action": "roll", "dice": [3]},
    {"action": "roll", "dice": "31"},
    {"action": "roll", "dice": [3, 1]},
    {"action": "resign", "level": "triple"},
    {"action": "resign", "level": 4},
]


def _snapshot(s: PlaySession) -> tuple[Any, ...]:
    dice = s._dice.rolled if s._dice else None
    return s.state(), len(s.log), json.dumps(s.log[-3:]), dice, s.clock and s.clock.to_dict()


def _refused(s: PlaySession, action: Any) -> bool:
    before = _snapshot(s)
    try:
        s.apply(action)
    except SessionError:
        assert _snapshot(s) == before
        return True
    return False


@pytest.mark.parametrize("name", ["international-match", "money", "tavla-options-client"])
def test_illegal_actions_change_nothing(name: str, make: Callable[..., PlaySession]) -> None:
    s = make(CONFIGS[name])
    rng = random.Random(1)
    refused = 0
    for step in range(150):
        st = check_state(s)
        if st["status"] == "finished":
            break
        for name_ in ACTIONS:
            if name_ not in st["actions"]:
                assert _refused(s, {"action": name_}), name_
                refused += 1
        if step % 4 == 0:
            for action in ILLEGAL:
                legal_client_roll = action == {"action": "roll", "dice": [3, 1]} and (
                    "roll" in st["actions"] and st["dice_mode"] == "client"
                )
                if not legal_client_roll:
                    assert _refused(s, action), action
                    refused += 1
        s.apply(random_action(st, rng))
    assert refused > 50


def test_finished_sessions_refuse_everything(make: Callable[..., PlaySession]) -> None:
    s = make({"match_length": 1, "bot": {"level": "easy"}})
    drive(s, random.Random(3))
    assert s.status == "finished"
    for name in ACTIONS:
        with pytest.raises(SessionError) as e:
            s.apply({"action": name})
        assert e.value.code == "finished"


@pytest.mark.parametrize(
    "name", ["international-match", "money", "tavla", "client-trainer", "adaptive-clock"]
)
def test_json_round_trip_continues_identically(name: str, make: Callable[..., PlaySession]) -> None:
    cfg = CONFIGS[name]
    clock = cfg.get("clock") is not None
    s = make(cfg, now=0.0 if clock else None)
    rng = random.Random(f"rt-{name}")
    now = 0.0 if clock else None
    for _ in range(40):  # into the game
        st = check_state(s)
        if st["status"] == "finished":
            break
        if now is not None:
            now += 2.0
        s.apply(random_action(st, rng), now)
    text = s.dumps()
    restored = PlaySession.from_json(text, evaluator=s.evaluator)
    assert restored.dumps() == text
    assert restored.state(now) == s.state(now)
    # both continue with the same actions: the same events, dice and bot replies
    rng_a, rng_b = random.Random(5), random.Random(5)
    for _ in range(300):
        st_a, st_b = check_state(s), check_state(restored)
        assert st_a == st_b
        if st_a["status"] == "finished":
            break
        if now is not None:
            now += 2.0
        ea = s.apply(random_action(st_a, rng_a), now)
        eb = restored.apply(random_action(st_b, rng_b), now)
        assert ea == eb
    assert s.dumps() == restored.dumps()


def test_a_tampered_log_does_not_replay(make: Callable[..., PlaySession]) -> None:
    s = make({"match_length": 3, "bot": {"level": "easy"}})
    drive(s, random.Random(2), steps=20)
    data = s.to_json()
    roll = next(e for e in data["log"] if e["a"] == "roll")
    roll["d"] = [roll["d"][0] % 6 + 1, roll["d"][1]]
    with pytest.raises(PulvezarError, match="do not match the dice seed"):
        PlaySession.from_json(data, evaluator=s.evaluator)
    with pytest.raises(PulvezarError):
        PlaySession.from_json({"format": "something else"})
