"""Help during play (issue 30): hints (the engine's candidates, counted against the match's limit, replayed
from the log), checking a play without making it, and the trainer's warning threshold."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import pytest
from playkit import check_state, random_action

from pulvezar.errors import PulvezarError
from pulvezar.play import PlaySession
from pulvezar.play.errors import ActionNotAvailableError, InvalidActionError


def to_play(s: PlaySession, rng: random.Random) -> dict[str, Any]:
    """Random actions until the human is to play a roll with a choice; the state."""
    for _ in range(2000):
        st = check_state(s)
        if "play" in st["actions"] and len(st["legal_plays"]) > 1:
            return st
        acts = [a for a in st["actions"] if a not in ("resign", "end", "double")] or st["actions"]
        s.apply(random_action({**st, "actions": acts}, rng))
    raise AssertionError("no roll to play")


def test_hints_are_counted_against_the_limit_and_replay(make: Callable[..., PlaySession]) -> None:
    s = make({"match_length": 3, "bot": {"level": "easy"}, "hint_limit": 2})
    rng = random.Random(30)
    st = to_play(s, rng)
    assert (st["hints_used"], st["hints_left"]) == (0, 2)
    cands, events = s.hint()
    assert events == [{"type": "hint", "player": 0, "details": {"used": 1, "left": 1}}]
    assert 1 <= len(cands) <= 5 and cands[0]["loss"] == 0
    assert [c["equity"] for c in cands] == sorted((c["equity"] for c in cands), reverse=True)
    legal = {p["notation"]: p["position_id"] for p in st["legal_plays"]}
    assert all(legal[c["notation"]] == c["position_id"] for c in cands)
    after = check_state(s)
    assert {k: v for k, v in after.items() if not k.startswith("hints_")} == {
        k: v for k, v in st.items() if not k.startswith("hints_")
    }  # nothing on the board changed
    s.hint()
    assert check_state(s)["hints_left"] == 0
    with pytest.raises(ActionNotAvailableError, match="no hints left"):
        s.hint()
    again = PlaySession.from_json(s.to_json(), evaluator=s.evaluator)
    assert (again.hints_used, again.hints_left()) == (2, 0)
    s.apply({"action": "play", "notation": cands[0]["notation"]})  # the game goes on


def test_a_hint_or_check_only_when_a_roll_is_to_be_played(make: Callable[..., PlaySession]) -> None:
    s = make({"match_length": 1, "bot": {"level": "easy"}})
    assert check_state(s)["hints_left"] is None  # no limit
    with pytest.raises(ActionNotAvailableError, match="a hint"):
        s.hint()  # the opening roll comes first
    with pytest.raises(ActionNotAvailableError):
        s.check({"action": "check", "notation": "8/5 6/5"})


def test_check_values_a_play_without_making_it(make: Callable[..., PlaySession]) -> None:
    s = make({"match_length": 1, "bot": {"level": "easy"}, "trainer": True, "warn_at": 0.08})
    st = to_play(s, random.Random(31))
    before = s.to_json()
    verdicts = [s.check({"action": "check", "notation": p["notation"]}) for p in st["legal_plays"]]
    assert s.to_json() == before  # nothing was made
    best = min(verdicts, key=lambda v: v["loss"])
    assert best["loss"] == 0 and best["played"] == best["best"]
    for v in verdicts:
        assert v["decision"] == "play" and v["warn"] == (v["loss"] >= 0.08)
    by_id = s.check({"action": "check", "position_id": st["legal_plays"][0]["position_id"]})
    assert by_id["played"] == verdicts[0]["played"]
    with pytest.raises(PulvezarError) as e:
        s.check({"action": "check", "notation": "24/1"})
    assert e.value.field == "notation"
    with pytest.raises(InvalidActionError):
        s.check({"action": "check", "notation": st["legal_plays"][0]["notation"], "dice": [1, 2]})
    # the verdict of a play made carries the warning flag too
    s.apply({"action": "play", "notation": st["legal_plays"][0]["notation"]})
    trainer = check_state(s)["trainer"]
    assert trainer["warn"] == (trainer["loss"] >= 0.08)


@pytest.mark.parametrize(
    ("settings", "field"),
    [({"hint_limit": -1}, "hint_limit"), ({"hint_limit": 1.5}, "hint_limit"), ({"warn_at": 0}, "warn_at"),
     ({"warn_at": True}, "warn_at"), ({"warn_at": 2}, "warn_at")],
)  # fmt: skip
def test_bad_help_settings_name_the_field(
    make: Callable[..., PlaySession], settings: dict[str, Any], field: str
) -> None:
    with pytest.raises(PulvezarError) as e:
        make({"match_length": 1, **settings})
    assert e.value.field == field


@pytest.mark.parametrize("seed", [3, 4])
def test_the_resignation_preview_is_the_bots_answer(make: Callable[..., PlaySession], seed: int) -> None:
    s = make({"match_length": 3, "bot": {"level": "easy"}})
    rng = random.Random(seed)
    seen = 0
    for _ in range(60):
        st = check_state(s)
        if st["status"] == "finished":
            break
        preview = st["resign_preview"]
        assert (preview is None) == (not st["resign_levels"])
        if preview is not None:
            assert list(preview) == st["resign_levels"]
            for level, accepts in preview.items():
                trial = PlaySession.from_json(s.to_json(), evaluator=s.evaluator)
                events = trial.apply({"action": "resign", "level": level})
                assert any(e["type"] == "accept" for e in events) == accepts, (level, events)
                seen += 1
        acts = [a for a in st["actions"] if a not in ("resign", "end")] or st["actions"]
        s.apply(random_action({**st, "actions": acts}, rng))
    assert seen


def test_a_games_luck_for_its_result_card(make: Callable[..., PlaySession]) -> None:
    from playkit import Fixed, drive

    from pulvezar.play.card import game_luck

    s = make({"match_length": 1, "bot": {"level": "easy"}})
    drive(s, random.Random(8))
    me, bot = game_luck(s, 0, s.evaluator)
    assert math.isfinite(me) and math.isfinite(bot) and (me, bot) != (0.0, 0.0)
    assert game_luck(s, 0, s.evaluator) == (me, bot)
    # an evaluator that values every position alike: no roll is luckier than another
    flat = make({"match_length": 1, "bot": {"level": "easy"}}, evaluator=Fixed(0.5))
    drive(flat, random.Random(8))
    assert game_luck(flat, 0, flat.evaluator) == (0.0, 0.0)


def test_the_trainer_and_bot_prune_unless_the_session_says_not(make: Callable[..., PlaySession]) -> None:
    """Hints at the trainer's ply are the pruned search's by default, the unpruned one's with
    ``prune=False``, which the session's record keeps (a pruned session's record has no such key)."""
    from pulvezar.search.hint import searcher

    for prune in (True, False):
        s = make({"match_length": 1, "bot": {"level": "hard"}}, trainer_ply=1, prune=prune)
        assert s.bot.prune is prune and s.bot.bot.prune is prune
        st = to_play(s, random.Random(41))
        g = s.game
        assert g.dice is not None
        want = searcher(s.evaluator, g.rules, prune).rank(g.position, g.dice, 1)
        cands, _ = s.hint()
        assert [c["equity"] for c in cands] == pytest.approx(
            [c.equity for c in want[: len(cands)]],
            abs=5.1e-5,  # the hint rounds to 4 places
        )
        record = s.to_json()
        assert record.get("prune", True) is prune and ("prune" in record) is not prune
        again = PlaySession.from_json(record, evaluator=s.evaluator)
        assert again.prune is prune and check_state(again)["legal_plays"] == st["legal_plays"]
