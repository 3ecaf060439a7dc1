"""Resigning the whole match (issue 44): the bot wins the points the match still needs, the match is over
and counts as a loss; the record replays it; a money session ends with the cube's value."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pulvezar.play import PlaySession
from pulvezar.play.errors import SessionFinishedError
from pulvezar.play.statistics import fold


def test_a_resigned_match_is_a_loss_that_replays(make: Callable[..., PlaySession]) -> None:
    s = make({"match_length": 5, "bot": {"level": "easy"}})
    s.apply({"action": "roll"}, 10.0)
    events = s.forfeit(20.0)
    assert [e["type"] for e in events] == ["forfeit", "game_end", "finished"]
    end = events[1]["details"]
    assert end["winner"] == 1 and end["points"] == 5 and end["how"] == "forfeit" and end["at"] == 20.0
    assert s.status == "finished" and s.result == {"reason": "forfeit", "winner": 1, "score": [0, 5]}
    with pytest.raises(SessionFinishedError):
        s.forfeit(30.0)
    again = PlaySession.from_json(s.to_json())
    assert again.status == "finished" and again.result == s.result and again.match.score == (0, 5)
    stats = fold(None, events, {"level": "easy", "match_length": 5})
    assert stats["matches_played"] == 1 and stats["matches_won"] == 0 and stats["games_played"] == 1


def test_a_money_session_resigned_ends_with_the_cubes_value(make: Callable[..., PlaySession]) -> None:
    s = make({"match_length": 0})
    events = s.forfeit()
    assert events[1]["details"]["points"] == 1 and "at" not in events[1]["details"]
    assert s.result is not None and s.result["reason"] == "forfeit" and s.result["winner"] == 1
