"""Scripted games: every cube action, resignations, Crawford, Tavla openings, client dice, forced plays,
illegal plays in the rules' words, the trainer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playkit import Fixed

from pulvezar.i18n import LANGUAGES
from pulvezar.play import ActionNotAvailableError, IllegalMoveError, PlaySession
from pulvezar.rules.position import Position

MONEY_ALL = {"match_length": 0, "money": {"beaver": True, "raccoon": True}, "dice": "client"}


def kinds(events: list[dict[str, Any]]) -> list[tuple[str, int | None]]:
    return [(e["type"], e["player"]) for e in events]


def opening_for_bot(s: PlaySession) -> None:
    """The bot wins the opening 3-1 and plays; the human is then to roll."""
    s.apply({"action": "roll", "dice": [1, 3]})
    assert s.state()["to_act"] == 0 and "roll" in s.state()["actions"]


def bot_turn(s: PlaySession, human: list[int] = [6, 5], bot: list[int] = [2, 1]) -> list[dict[str, Any]]:  # noqa: B006
    """The human rolls ``human`` and plays the first legal play; the bot's turn begins."""
    s.apply({"action": "roll", "dice": human})
    play = s.state()["legal_plays"][0]
    return s.apply({"action": "play", "position_id": play["position_id"]})


def test_client_dice_opening_and_bot_turn(make: Callable[..., PlaySession]) -> None:
    s = make({"match_length": 5, "dice": "client"}, evaluator=Fixed(0.5))
    st = s.state()
    assert st["actions"] == ["roll"] and st["dice_commitment"] is None and st["phase"] == "opening"
    ev = s.apply({"action": "roll", "dice": [2, 2]})  # a tie: roll again
    assert kinds(ev) == [("opening", None)] and ev[0]["details"]["winner"] is None
    ev = s.apply({"action": "roll", "dice": [3, 1]})  # the human's die first
    assert ev[0]["details"] == {"dice": [3, 1], "winner": 0}
    st = s.state()
    assert (
        st["phase"] == "move"
        and st["dice"] == [3, 1]
        and "8/5 6/5" in [p["notation"] for p in st["legal_plays"]]
    )
    ev = s.apply({"action": "play", "notation": "8/5 6/5"})
    assert kinds(ev) == [("play", 0)]
    st = s.state()
    assert st["to_act"] == 1 and st["turn"] == 1 and st["actions"] == ["roll", "resign"]  # the bot's dice
    ev = s.apply({"action": "roll", "dice": [6, 4]})
    assert kinds(ev) == [("roll", 1), ("play", 1)]
    st = s.state()
    assert st["to_act"] == 0 and st["actions"] == ["roll", "double", "resign"]
    assert st["resign_levels"] == ["single", "gammon", "backgammon"]


def test_bot_doubles_human_takes_then_passes(make: Callable[..., PlaySession]) -> None:
    s = make(MONEY_ALL, evaluator=Fixed(0.7))
    opening_for_bot(s)
    ev = bot_turn(s)
    assert kinds(ev)[-1] == ("double", 1) and ev[-1]["details"] == {"cube": 2}
    st = s.state()
    assert st["actions"] == ["take", "pass", "beaver"] and st["board"]["xgid"].split(":")[4] == "D"
    s.apply({"action": "take"})
    st = s.state()
    assert st["cube"] == {"value": 2, "owner": 0, "used": True} and st["to_act"] == 1  # the bot's dice
    # the human owns the cube now; the bot cannot double again; next turn the human may
    s.apply({"action": "roll", "dice": [4, 2]})
    assert "double" in s.state()["actions"]
    ev = bot_turn(s)
    assert ("double", 1) not in kinds(ev)


def test_human_passes_the_bots_double(make: Callable[..., PlaySession]) -> None:
    s = make(MONEY_ALL, evaluator=Fixed(0.7))
    opening_for_bot(s)
    bot_turn(s)
    ev = s.apply({"action": "pass"})
    assert kinds(ev) == [("drop", 0), ("game_end", 1), ("game_start", None)]
    assert ev[1]["details"]["points"] == 1 and ev[1]["details"]["how"] == "drop"
    st = s.state()
    assert st["score"] == [0, 1] and st["game"] == 2 and st["actions"] == ["roll", "end"]
    ev = s.apply({"action": "end"})
    assert kinds(ev) == [("finished", None)] and s.state()["status"] == "finished"


def test_human_beavers_bot_raccoons_human_takes(make: Callable[..., PlaySession]) -> None:
    s = make(MONEY_ALL, evaluator=Fixed(0.7))
    opening_for_bot(s)
    bot_turn(s)
    ev = s.apply({"action": "beaver"})
    assert kinds(ev) == [("beaver", 0), ("raccoon", 1)]  # the bot is better: it raccoons
    assert s.state()["actions"] == ["take", "pass"]
    s.apply({"action": "take"})
    st = s.state()
    assert st["cube"]["value"] == 8 and st["cube"]["owner"] == 0


def test_bot_takes_a_beaver_without_the_raccoon_rule(make: Callable[..., PlaySession]) -> None:
    s = make({**MONEY_ALL, "money": {"beaver": True}}, evaluator=Fixed(0.7))
    opening_for_bot(s)
    bot_turn(s)
    ev = s.apply({"action": "beaver"})
    assert kinds(ev) == [("beaver", 0), ("take", 1)]
    assert s.state()["cube"] == {"value": 4, "owner": 0, "used": True}


@pytest.mark.parametrize(("win", "answer"), [(0.7, "take"), (0.9, "drop"), (0.4, "beaver")])
def test_bot_answers_the_humans_double(make: Callable[..., PlaySession], win: float, answer: str) -> None:
    s = make(MONEY_ALL, evaluator=Fixed(win))
    opening_for_bot(s)  # the bot has had no turn to double in
    ev = s.apply({"action": "double"})
    assert kinds(ev)[:2] == [("double", 0), (answer, 1)]
    st = s.state()
    if answer == "take":
        assert st["cube"] == {"value": 2, "owner": 1, "used": True} and st["actions"] == ["roll", "resign"]
    elif answer == "drop":
        assert st["score"] == [1, 0] and ev[2]["details"]["how"] == "drop"
    else:
        assert st["actions"] == ["take", "pass", "raccoon"]
        ev = s.apply({"action": "raccoon"})
        assert kinds(ev) == [("raccoon", 0), ("take", 1)]
        assert s.state()["cube"] == {"value": 8, "owner": 1, "used": True}


def test_the_human_passes_a_beaver(make: Callable[..., PlaySession]) -> None:
    s = make(MONEY_ALL, evaluator=Fixed(0.4))
    opening_for_bot(s)
    s.apply({"action": "double"})
    ev = s.apply({"action": "pass"})
    assert ev[1]["type"] == "game_end" and ev[1]["player"] == 1 and ev[1]["details"]["points"] == 2


def test_jacoby_limits_resignations_until_the_cube_is_turned(make: Callable[..., PlaySession]) -> None:
    s = make({"match_length": 0, "money": {"jacoby": True}, "dice": "client"}, evaluator=Fixed(0.5))
    s.apply({"action": "roll", "dice": [3, 1]})
    assert s.state()["resign_levels"] == ["single"]


def test_bot_resigns_human_rejects_then_accepts(make: Callable[..., PlaySession]) -> None:
    lost = Fixed(0.0, 0.0, 0.0, 1.0, 1.0)  # the side on roll loses a backgammon for sure
    s = make({"match_length": 7, "dice": "client"}, evaluator=lost)
    opening_for_bot(s)
    ev = bot_turn(s)
    assert ev[-1]["type"] == "resign" and ev[-1]["details"] == {"level": "backgammon", "points": 3}
    st = s.state()
    assert st["actions"] == ["accept", "reject"] and st["resignation"] == {"player": 1, "level": "backgammon"}
    ev = s.apply({"action": "reject"})
    assert kinds(ev) == [("reject", 0)]  # the bot does not offer the same again this game
    assert s.state()["to_act"] == 1 and s.state()["actions"] == ["roll", "resign"]
    ev = s.apply({"action": "roll", "dice": [5, 2]})  # the bot's dice: it plays on
    assert kinds(ev) == [("roll", 1), ("play", 1)]
    ev = bot_turn(s, human=[4, 1])
    assert ("resign", 1) not in kinds(ev) and s.state()["status"] == "playing"


def test_bot_resignation_accepted_scores_the_level(make: Callable[..., PlaySession]) -> None:
    s = make({"match_length": 7, "dice": "client"}, evaluator=Fixed(0.0, 0.0, 0.0, 1.0, 0.0))
    opening_for_bot(s)
    ev = bot_turn(s)
    assert ev[-1]["details"]["level"] == "gammon"
    ev = s.apply({"action": "accept"})
    assert kinds(ev)[:2] == [("accept", 0), ("game_end", 0)]
    assert ev[1]["details"]["points"] == 2 and ev[1]["details"]["how"] == "resignation"
    assert s.state()["score"] == [2, 0]


def test_human_resignations(make: Callable[..., PlaySession]) -> None:
    # the human on roll is lost for a gammon: the bot rejects a single, accepts a gammon
    s = make({"match_length": 7, "dice": "client"}, evaluator=Fixed(0.0, 0.0, 0.0, 1.0, 0.0))
    opening_for_bot(s)
    ev = s.apply({"action": "resign", "level": "single"})
    assert kinds(ev) == [("resign", 0), ("reject", 1)]
    assert s.state()["actions"] == ["roll", "double", "resign"]
    ev = s.apply({"action": "resign", "level": "gammon"})
    assert kinds(ev)[:3] == [("resign", 0), ("accept", 1), ("game_end", 1)]
    assert s.state()["score"] == [0, 2]
    with pytest.raises(ActionNotAvailableError):
        s.apply({"action": "resign"})  # at the opening of the next game


def test_resign_levels_in_a_match_stop_at_the_match(make: Callable[..., PlaySession]) -> None:
    s = make({"match_length": 1, "dice": "client"}, evaluator=Fixed(0.5))
    s.apply({"action": "roll", "dice": [3, 1]})
    assert s.state()["resign_levels"] == ["single"]  # a single already loses the 1-point match
    with pytest.raises(ActionNotAvailableError, match="possible: single"):
        s.apply({"action": "resign", "level": "gammon"})


def test_crawford_and_post_crawford(make: Callable[..., PlaySession]) -> None:
    ev_ = Fixed(0.5)
    s = make({"match_length": 3, "dice": "client"}, evaluator=ev_)
    s.apply({"action": "roll", "dice": [3, 1]})
    s.apply({"action": "resign", "level": "gammon"})  # the bot accepts: 0-2
    st = s.state()
    assert st["score"] == [0, 2] and st["crawford"] and not st["post_crawford"]
    opening_for_bot(s)
    st = s.state()
    assert "double" not in st["actions"] and st["board"]["xgid"].split(":")[7] == "1"
    with pytest.raises(ActionNotAvailableError, match="Crawford"):
        s.apply({"action": "double"})
    ev_.probs[:] = 0.0  # now the bot is lost: it resigns a single on its turn
    ev = bot_turn(s)
    assert ev[-1]["type"] == "resign" and ev[-1]["details"]["level"] == "single"
    s.apply({"action": "accept"})
    st = s.state()
    assert st["score"] == [1, 2] and not st["crawford"] and st["post_crawford"]
    ev_.probs[0] = 0.5
    s.apply({"action": "roll", "dice": [1, 3]})  # the bot opens
    assert "double" in s.state()["actions"]


def test_tavla_opening_rerolls_and_winner_opens_the_next_game(make: Callable[..., PlaySession]) -> None:
    s = make({"rules": {"variant": "tavla"}, "match_length": 5, "dice": "client"}, evaluator=Fixed(0.5))
    ev = s.apply({"action": "roll", "dice": [4, 4]})
    assert ev[0]["details"]["winner"] is None and s.state()["phase"] == "opening"
    s.apply({"action": "roll", "dice": [5, 2]})
    st = s.state()  # the winner rolls both dice again
    assert st["phase"] == "roll" and st["to_act"] == 0 and st["actions"] == ["roll", "resign"]
    assert st["resign_levels"] == ["single", "gammon"] and st["cube"]["used"] is False
    ev = s.apply({"action": "resign", "level": "mars"})
    assert ev[2]["details"]["points"] == 2
    st = s.state()  # the bot won: it opens game 2 with an ordinary roll (the client enters its dice)
    assert (
        st["game"] == 2 and st["phase"] == "roll" and st["turn"] == 1 and st["actions"] == ["roll", "resign"]
    )
    assert ev[-1]["type"] == "game_start" and ev[-1]["details"]["opener"] == 1
    ev = s.apply({"action": "roll", "dice": [6, 3]})
    assert kinds(ev) == [("roll", 1), ("play", 1)]


def test_tavla_server_dice_bot_opens_at_once(make: Callable[..., PlaySession]) -> None:
    s = make({"rules": {"variant": "tavla"}, "match_length": 5}, evaluator=Fixed(0.5), seed=bytes(32))
    s.apply({"action": "roll"})  # the opening 2-1: the human wins and rolls again
    ev = s.apply({"action": "resign", "level": "single"})
    assert kinds(ev)[-3:] == [("game_start", None), ("roll", 1), ("play", 1)]
    assert s.state()["to_act"] == 0


def test_forced_plays_are_played_only_when_set(make: Callable[..., PlaySession]) -> None:
    closed = Position.from_points({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    for auto in (False, True):
        s = make({"match_length": 3, "dice": "client", "auto_forced": auto}, evaluator=Fixed(0.5))
        s.game.position = closed  # the human is on the bar against a closed board
        ev = s.apply({"action": "roll", "dice": [3, 1]})
        if auto:
            assert kinds(ev)[:2] == [("opening", None), ("play", 0)] and ev[1]["details"]["auto"]
            assert s.state()["to_act"] == 1
        else:
            st = s.state()
            assert st["legal_plays"] == [{"notation": "", "position_id": closed.position_id}]
            ev = s.apply({"action": "play", "notation": ""})
            assert ev[0]["type"] == "play" and "auto" not in ev[0]["details"]


@pytest.mark.parametrize(
    ("dice", "text", "why"),
    [
        ([3, 1], "7/4 6/5", "you have no checker on the 7-point"),
        ([3, 1], "13/7", "no die of 31 (nor their sum) moves a checker from the 13-point to the 7-point"),
        ([5, 2], "24/19 13/11", "the 19-point is blocked: the opponent has 5 checkers there"),
        ([6, 5], "13/7 13/8 8/3", "the roll 65 has 2 dice; that play uses 3"),
        ([4, 2], "6/off", "you bear off only once all your checkers are in your home board"),
        ([4, 2], "8/4", "is not a legal play of 42 here (it uses 1 of 2 dice"),
    ],
)
def test_illegal_plays_say_why(
    make: Callable[..., PlaySession], dice: list[int], text: str, why: str
) -> None:
    s = make({"match_length": 3, "dice": "client"}, evaluator=Fixed(0.5))
    s.apply({"action": "roll", "dice": dice})
    before = s.dumps()
    with pytest.raises(IllegalMoveError) as e:
        s.apply({"action": "play", "notation": text})
    assert why in str(e.value) and f"{dice[0]}{dice[1]}" in str(e.value)
    assert e.value.code == "illegal_play" and e.value.field == "notation"
    assert s.dumps() == before


def test_trainer_verdicts(make: Callable[..., PlaySession]) -> None:
    s = make({"match_length": 0, "dice": "client", "trainer": True})  # the shipped net, 0 ply
    s.apply({"action": "roll", "dice": [3, 1]})
    ev = s.apply({"action": "play", "notation": "13/10 6/5"})
    v = ev[0]["details"]["verdict"]
    assert v == s.state()["trainer"]
    assert v["decision"] == "play" and v["played"] == "13/10 6/5" and v["best"] == "8/5 6/5"
    assert v["loss"] >= 0.02 and v["mark"] in ("doubtful", "blunder")
    assert set(v["explanation"]) == set(LANGUAGES)
    assert v["explanation"]["en"].startswith("8/5 6/5 is better than 13/10 6/5")
    assert "besser als" in v["explanation"]["de"] and "daha iyidir" in v["explanation"]["tr"]
    s.apply({"action": "roll", "dice": [6, 4]})
    ev = s.apply({"action": "double"})  # far too early
    v = ev[0]["details"]["verdict"]
    assert v["decision"] == "cube" and v["played"] == "double" and v["best"] == "no double"
    assert v["mark"] == "blunder" and v["explanation"]["en"].startswith("Not doubling was right here")
    assert "je Würfelwert" in v["explanation"]["de"]


class Flaky(Fixed):
    """A fixed evaluator that fails while ``down`` (a remote evaluator that is unreachable)."""

    down = False

    def evaluate_boards(self, boards: Any) -> Any:
        if self.down:
            raise RuntimeError("the evaluation service is unavailable")
        return super().evaluate_boards(boards)


def test_a_failing_evaluator_leaves_a_consistent_session_that_resumes(
    make: Callable[..., PlaySession],
) -> None:
    ev = Flaky(0.5)
    s = make({"match_length": 3, "bot": {"level": "easy"}}, evaluator=ev, seed=bytes(32))
    s.apply({"action": "roll"})  # the opening 2-1: the human plays
    ev.down = True
    with pytest.raises(RuntimeError):
        s.apply({"action": "play", "position_id": s.state()["legal_plays"][0]["position_id"]})
    st = s.state()
    assert st["bot_pending"] and st["to_act"] == 1 and st["actions"] == ["resign"]
    restored = PlaySession.from_json(s.dumps(), evaluator=ev)
    assert restored.state() == st
    ev.down = False
    ev_a, ev_b = s.resume(), restored.resume()
    assert ev_a == ev_b and ev_a[-1]["type"] == "play" and ev_a[-1]["player"] == 1
    assert not s.state()["bot_pending"] and s.state()["to_act"] == 0 and s.resume() == []
