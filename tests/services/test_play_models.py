"""The Play API's response model (:class:`services.gateway.play_models.GameView`) gives clients the JSON they
got when the routes returned the state's dict: the same bytes, key order included, over random games of
both rule sets, match and money, with the trainer, hints, checks and events, to the end (the seed)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from cheap_evaluator import Cheap

from pulvezar import PulvezarError
from pulvezar.play import GameSettings, PlaySession
from pulvezar.play.start import Start
from services.gateway.services.games import event_view, human_type, verdict, view


def dict_view(
    game_id: str, session: PlaySession, now: float, lang: str, created: float | None, player: str | None
) -> dict[str, Any]:
    """The view as the routes built it before the model (services/gateway/routers/games.py's ``_view``)."""
    state: dict[str, Any] = session.state(now=now)
    if state.get("status") != "finished":
        state.pop("dice_seed", None)
    state["trainer"] = verdict(state.get("trainer"), lang)
    if state.get("status") == "playing":  # issue 44: the position type in the human's view
        state["position_type"] = human_type(session)
    head: dict[str, Any] = {"id": game_id, "href": f"/v1/games/{game_id}"}
    if created:
        head["created"] = created
    if player is not None:
        head["player"] = player
    return {**head, **state}


def same_bytes(old: dict[str, Any], new: dict[str, Any]) -> None:
    assert json.dumps(new) == json.dumps(old)


def an_action(st: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    name = rng.choice(st["actions"])
    action: dict[str, Any] = {"action": name}
    if name == "play":
        action["notation"] = rng.choice(st["legal_plays"])["notation"]
    elif name == "roll" and st["dice_mode"] == "client":
        action["dice"] = [rng.randint(1, 6), rng.randint(1, 6)]
    elif name == "resign":
        action["level"] = rng.choice(st["resign_levels"])
    return action


@pytest.mark.parametrize(
    "settings",
    [
        {"match_length": 3, "trainer": True, "clock": True, "hint_limit": 5, "bot": {"level": "easy"}},
        {"match_length": 0, "money": {"jacoby": True, "beaver": True}, "dice": "client"},
        {"rules": {"variant": "tavla"}, "match_length": 1, "trainer": True, "bot": {"level": "easy"}},
        {"match_length": 7, "free": True, "start": "XGID=-b----E-C---eE---c-e----B-:1:1:1:52:3:1:0:7:10"},
    ],
)
def test_the_game_view_is_the_states_json(settings: dict[str, Any]) -> None:
    rng = random.Random(7)
    seed = None if settings.get("dice") == "client" else bytes(32)
    start = Start.parse(settings.pop("start"), "on_roll") if "start" in settings else None
    session = PlaySession(
        GameSettings.from_dict(settings), evaluator=Cheap(), now=0.0, seed=seed, bot_seed=3, start=start
    )
    lang, created, player = "de", 1.5, rng.choice([None, "p1"])
    for step in range(400):
        now = float(step)
        old = dict_view("g1", session, now, lang, created, player)
        same_bytes(old, view("g1", session, now, lang, created, player).body())
        if session.status == "finished":
            assert "dice_seed" in old or settings.get("dice") == "client"
            return
        if "play" in old["actions"] and rng.random() < 0.3:
            action = {"action": "check", "notation": old["legal_plays"][0]["notation"]}
            checked = verdict(session.check(action), lang)
            extra = {"check": checked, "events": []}
            same_bytes({**old, **extra}, view("g1", session, now, lang, created, player, **extra).body())
        if "play" in old["actions"] and session.hints_left() != 0 and rng.random() < 0.2:
            hint, events = session.hint()
        else:
            hint = None
            try:
                events = session.apply(an_action(old, rng), now)
            except PulvezarError:
                continue
        shown = [event_view(e, lang) for e in events]
        old = dict_view("g1", session, now, lang, created, player)
        extra = {"events": shown} if hint is None else {"hint": hint, "events": shown}
        same_bytes({**old, **extra}, view("g1", session, now, lang, created, player, **extra).body())
    pytest.fail("the game did not end in 400 steps")
