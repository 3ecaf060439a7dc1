"""The Play API under random action sequences, legal and illegal (a hypothesis state machine), on a gateway
in process with an SQLite store and a cheap evaluator: never a 5xx, every state shown is a legal one,
and a refused action changes nothing.  Also the trainer's language by ``Accept-Language`` and the
server's match clock."""

from __future__ import annotations

import string
import tempfile
import time
from typing import Any

import pytest
from cheap_evaluator import Cheap
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from pulvezar import Position
from services.gateway.app import create_app
from services.gateway.settings import GatewaySettings
from services.store.db import upgrade

KEY = "fuzz-key"
ACTIONS = ["roll", "play", "double", "take", "pass", "beaver", "raccoon", "resign", "accept", "reject", "end"]


def client() -> TestClient:
    url = f"sqlite:///{tempfile.mkdtemp(prefix='games-')}/pulvezar.db"
    upgrade(url)
    app = create_app(
        GatewaySettings(
            api_keys={KEY: {"name": "fuzz", "rate_per_s": 100000, "burst": 100000}},
            rules_address="127.0.0.1:9",
            evaluator_address="127.0.0.1:9",
        )  # type: ignore[call-arg]
    )
    app.state.database_url = url
    app.state.game_evaluator = Cheap()
    counter = iter(range(1, 10**9))

    def seeds() -> tuple[bytes, int]:  # the same dice and bot noise in every run of an example
        n = next(counter)
        return n.to_bytes(32, "big"), n

    app.state.game_seeds = seeds
    return TestClient(app, headers={"X-API-Key": KEY})


def legal(state: dict[str, Any]) -> None:
    """A state that can be: 15 checkers a side, an ID that decodes, actions that fit."""
    board = state["board"]
    pos = Position.from_position_id(board["position_id"])
    assert sum(pos.mine) + board["off"][state["turn"]] == 15
    assert sum(pos.theirs) + board["off"][1 - state["turn"]] == 15
    assert set(state["actions"]) <= set(ACTIONS)
    assert ("play" in state["actions"]) == bool(state["legal_plays"])
    assert (state["status"] == "finished") == (state["actions"] == [])
    assert state["status"] == "finished" or "dice_seed" not in state


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return {k: v for k, v in a.items() if k != "clock"} == {k: v for k, v in b.items() if k != "clock"}


class PlayApi(RuleBasedStateMachine):
    """Any sequence of actions against one game: the API answers 200, 409 or 422, never 5xx."""

    def __init__(self) -> None:
        super().__init__()
        self.http = CLIENT
        CLIENT.app.state.game_seeds = lambda: (bytes(32), 7)  # type: ignore[attr-defined]
        self.state: dict[str, Any] = {}

    @initialize(
        variant=st.sampled_from(["international", "tavla"]),
        length=st.sampled_from([0, 1, 3]),
        dice=st.sampled_from(["server", "client"]),
        trainer=st.booleans(),
    )
    def create(self, variant: str, length: int, dice: str, trainer: bool) -> None:
        if variant == "tavla" and length == 0:
            length = 1
        body: dict[str, Any] = {"rules": {"variant": variant}, "match_length": length, "dice": dice}
        body["trainer"] = trainer
        body["bot"] = {"level": "easy"}
        if length == 0:
            body["money"] = {"jacoby": True, "beaver": True, "raccoon": True}
        r = self.http.post("/v1/games", json=body)
        assert r.status_code == 201, r.text
        self.state = r.json()

    def act(self, action: dict[str, Any]) -> None:
        before = self.state
        r = self.http.post(f"/v1/games/{before['id']}/actions", json=action)
        assert r.status_code in (200, 409, 422), (action, r.status_code, r.text)
        if r.status_code == 200:
            self.state = r.json()
            self.state.pop("events")
            assert action["action"] in before["actions"], (action, before["actions"])
        else:
            assert r.headers["content-type"] == "application/problem+json" and r.json()["errors"]
            now = self.http.get(f"/v1/games/{before['id']}").json()
            assert same(now, before), "a refused action changed the game"

    @rule(data=st.data())
    def a_legal_action(self, data: st.DataObject) -> None:
        acts = self.state["actions"]
        if not acts:
            return
        name = data.draw(st.sampled_from(acts))
        action: dict[str, Any] = {"action": name}
        if name == "play":
            p = data.draw(st.sampled_from(self.state["legal_plays"]))
            key = data.draw(st.sampled_from(["notation", "position_id"]))
            action[key] = p[key]
        elif name == "roll" and self.state["dice_mode"] == "client":
            action["dice"] = [data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))]
        elif name == "resign":
            action["level"] = data.draw(st.sampled_from(self.state["resign_levels"]))
        self.act(action)

    @rule(
        name=st.sampled_from([*ACTIONS, "fly"]),
        notation=st.none() | st.text(string.digits + "/*() barof", max_size=20),
        dice=st.none() | st.tuples(st.integers(-1, 8), st.integers(-1, 8)),
        level=st.none() | st.sampled_from(["single", "gammon", "backgammon", "mars", 0, 4]),
    )
    def any_action(self, name: str, notation: str | None, dice: Any, level: Any) -> None:
        action: dict[str, Any] = {"action": name}
        if notation is not None:
            action["notation"] = notation
        if dice is not None:
            action["dice"] = list(dice)
        if level is not None:
            action["level"] = level
        self.act(action)

    @precondition(lambda self: bool(self.state))
    @invariant()
    def shown_state_is_legal(self) -> None:
        legal(self.state)


CLIENT: TestClient


@pytest.fixture(scope="module", autouse=True)
def _client() -> Any:
    global CLIENT
    with client() as c:
        CLIENT = c
        yield c


TestPlayApi = PlayApi.TestCase
TestPlayApi.settings = settings(
    max_examples=12, stateful_step_count=40, deadline=None, suppress_health_check=list(HealthCheck)
)


def test_trainer_speaks_the_accepted_language() -> None:
    http = CLIENT
    g = http.post("/v1/games", json={"match_length": 1, "trainer": True, "bot": {"level": "easy"}}).json()
    seen: dict[str, str] = {}
    for _ in range(60):
        if g["status"] == "finished" or len(seen) == 3:
            break
        lang = ["de", "tr", "en"][len(seen) % 3]
        acts = g["actions"]
        action = (
            {"action": "play", "notation": g["legal_plays"][-1]["notation"]}
            if "play" in acts
            else {"action": acts[0]}
        )
        r = http.post(
            f"/v1/games/{g['id']}/actions",
            json=action,
            headers={"Accept-Language": f"{lang}-DE;q=0.9, nl;q=1.0"},
        )
        assert r.status_code == 200, r.text
        g = r.json()
        v = g["trainer"]
        if v is not None and v.get("explanation") and action["action"] == "play":
            assert v["language"] == lang and v["why"] == v["explanation"][lang]
            seen[lang] = v["why"]
    assert len(seen) >= 2 and len(set(seen.values())) == len(seen)  # different words, not one text


def test_the_clock_runs_on_the_server() -> None:
    http = CLIENT
    body = {"match_length": 1, "bot": {"level": "easy"}, "clock": {"minutes": 0.05, "delay": 0.5}}
    g = http.post("/v1/games", json=body).json()
    assert g["clock"]["remaining"] == [3.0, 3.0] and g["clock"]["running"] == 0
    time.sleep(0.2)
    assert http.get(f"/v1/games/{g['id']}").json()["clock"]["remaining"][0] == 3.0  # within the delay
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        st_ = http.get(f"/v1/games/{g['id']}").json()
        if st_["status"] == "finished":
            break
        time.sleep(0.5)
    assert st_["status"] == "finished" and st_["result"]["reason"] == "timeout"
    assert st_["result"]["winner"] == 1 and st_["clock"]["remaining"][0] == 0
    events = http.get(f"/v1/games/{g['id']}/events")
    assert "event: timeout" in events.text and "event: finished" in events.text
