"""The Play API over real processes: an Evaluator service (a small net), a gateway (uvicorn subprocess) and
the durable store (SQLite), on free ports.

Full games and matches through REST with random legal actions and per-state checks (both rule sets,
match and money, cube actions, resignations, Crawford), client dice, the dice verification, the export
and the event stream; illegal actions are problems that change nothing; a retried request with an
``Idempotency-Key`` acts once; another key gets 404; a game continues after the gateway and the
evaluator were restarted.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

pytest.importorskip("sqlalchemy")

from pulvezar import Position, Rules
from pulvezar.analysis.bots import level_for_rating
from pulvezar.formats import read_mat, read_sgf
from pulvezar.formats.ogxm import read_ogxm
from pulvezar.rules.matchid import MatchId
from pulvezar.rules.xgid import XGID

if TYPE_CHECKING:
    from conftest import GatewayProcess, ServiceProcess


KEY, OTHER = "games-key", "other-games-key"
ACTIONS = {"roll", "play", "double", "take", "pass", "beaver", "raccoon", "resign", "accept", "reject", "end"}
WEIGHTS = {
    "roll": 10.0, "play": 10.0, "double": 1.0, "take": 3.0, "pass": 1.0, "beaver": 1.0, "raccoon": 1.0,
    "resign": 0.05, "accept": 1.0, "reject": 1.0, "end": 0.05,
}  # fmt: skip


class Platform:
    """An Evaluator service and a gateway on one SQLite store; either can be restarted."""

    def __init__(
        self,
        service_process: type[ServiceProcess],
        gateway_process: type[GatewayProcess],
        model: Path,
        database_url: str,
        redis_url: str,
    ) -> None:
        self.service_process, self.gateway_process = service_process, gateway_process
        self.model, self.database_url = model, database_url
        self.redis_url = redis_url  # the job store's: an analysis of a finished match is queued there
        self.evaluator: ServiceProcess | None = None
        self.gateway: GatewayProcess | None = None
        self.start()

    def start(self) -> None:
        self.evaluator = self.service_process(
            "services.evaluator", "--device", "cpu", "--model-path", str(self.model)
        )
        self.evaluator.wait_serving()
        limits = {"rate_per_s": 1000, "burst": 1000}
        env = {
            "PULVEZAR_DATABASE_URL": self.database_url,
            "PULVEZAR_GATEWAY_REDIS_URL": self.redis_url,
            "PULVEZAR_GATEWAY_TRAINER_PLY": "1",  # the verdicts' shape is the point here, not their depth
            "PULVEZAR_GATEWAY_API_KEYS": json.dumps(
                {KEY: {"name": "games", **limits}, OTHER: {"name": "other", **limits}}
            ),
        }
        # the Play API needs no Rules service
        self.gateway = self.gateway_process(env, evaluator=self.evaluator.address, key=KEY, timeout_s=120)
        self.http = self.gateway.http

    def stop(self) -> None:
        assert self.gateway is not None and self.evaluator is not None
        self.gateway.svc.signal_stop()  # both at once
        self.evaluator.signal_stop()
        self.gateway.stop()
        assert self.evaluator.terminate() == 0


@pytest.fixture(scope="module")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    from services.store.db import upgrade

    url = f"sqlite:///{tmp_path_factory.mktemp('games') / 'pulvezar.db'}"
    upgrade(url)
    return url


@pytest.fixture(scope="module")
def platform(
    service_process: type[ServiceProcess],
    gateway_process: type[GatewayProcess],
    model_file: Path,
    database_url: str,
    redis_server: str,
) -> Iterator[Platform]:
    p = Platform(service_process, gateway_process, model_file, database_url, redis_server)
    yield p
    p.stop()


def check(st: dict[str, Any]) -> dict[str, Any]:
    """What must hold in every state the API shows."""
    assert st["status"] in ("playing", "finished") and st["id"] and st["href"] == f"/v1/games/{st['id']}"
    acts = st["actions"]
    assert set(acts) <= ACTIONS and len(set(acts)) == len(acts)
    board = st["board"]
    pos = Position.from_position_id(board["position_id"])
    human, bot = board["checkers"]["human"], board["checkers"]["bot"]
    assert sum(human) + board["off"][0] == 15 and sum(bot) + board["off"][1] == 15
    assert (pos.mine, pos.theirs) == (
        (tuple(human), tuple(bot)) if st["turn"] == 0 else (tuple(bot), tuple(human))
    )
    if board["match_id"] is not None:
        assert MatchId.parse(board["match_id"]).cube_value == st["cube"]["value"]
    if board["xgid"] is not None:
        XGID.parse(board["xgid"])
    assert ("play" in acts) == bool(st["legal_plays"])
    for p in st["legal_plays"]:
        Position.from_position_id(p["position_id"])  # (the notation of "no move" is empty)
    if st["settings"]["rules"]["variant"] == "tavla":
        assert not {"double", "take", "pass", "beaver", "raccoon"} & set(acts) and st["cube"]["value"] == 1
    if st["crawford"]:
        assert "double" not in acts
    if st["status"] == "finished":
        assert acts == [] and st["result"] is not None
        assert (st.get("dice_seed") is not None) == (st["dice_mode"] == "server")
    else:
        assert acts and "dice_seed" not in st
    return st


def random_action(st: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    acts = st["actions"]
    name = rng.choices(acts, weights=[WEIGHTS[a] for a in acts])[0]
    action: dict[str, Any] = {"action": name}
    if name == "roll" and st["dice_mode"] == "client":
        action["dice"] = [rng.randint(1, 6), rng.randint(1, 6)]
    elif name == "play":
        p = rng.choice(st["legal_plays"])
        action.update(
            {"position_id": p["position_id"]} if rng.random() < 0.5 else {"notation": p["notation"]}
        )
    elif name == "resign":
        action["level"] = rng.choice(st["resign_levels"])
    return action


def play_out(
    http: httpx.Client, st: dict[str, Any], rng: random.Random, steps: int = 3000
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Random legal actions until the game ends; the last state and every event the answers carried."""
    events: list[dict[str, Any]] = []
    for _ in range(steps):
        check(st)
        if st["status"] == "finished":
            return st, events
        action = random_action(st, rng)
        r = http.post(f"/v1/games/{st['id']}/actions", json=action)
        assert r.status_code == 200, (action, r.text)
        st = r.json()
        events += st.pop("events")
    raise AssertionError("the game did not end")


def new_game(http: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    r = http.post("/v1/games", json=body)
    assert r.status_code == 201, r.text
    assert r.headers["Location"] == f"/v1/games/{r.json()['id']}"
    return check(r.json())


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """The same state but for the clock's reading."""
    return {k: v for k, v in a.items() if k != "clock"} == {k: v for k, v in b.items() if k != "clock"}


def problem(r: httpx.Response, status: int) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = r.json()
    return body


@pytest.mark.parametrize(
    "body",
    [
        {"match_length": 3, "bot": {"level": "easy"}, "trainer": True},
        {"rules": {"variant": "tavla", "hit_and_stop": True}, "match_length": 3, "bot": {"level": "medium"}},
        {
            "match_length": 0,
            "money": {"jacoby": True, "beaver": True, "raccoon": True},
            "bot": {"level": "easy"},
        },
    ],
    ids=["international-match", "tavla-match", "money"],
)
def test_full_games_verified_exported_streamed(platform: Platform, body: dict[str, Any]) -> None:
    http = platform.http
    used = lambda key=KEY: http.get("/v1/usage", headers={"X-API-Key": key}).json()["core_s"]["used"]  # noqa: E731
    before, other = used(), used(OTHER)
    st = new_game(http, body)
    commitment = st["dice_commitment"]
    assert len(commitment) == 64 and st["status"] == "playing"
    rng = random.Random(hash(json.dumps(body, sort_keys=True)) % 1000)
    if body["match_length"] == 0:  # a money session goes on until someone ends it: a few games
        for _ in range(400):
            if st["status"] == "finished" or (st["game"] >= 3 and "end" in st["actions"]):
                break
            a = random_action(st, rng) if "end" not in st["actions"] else {"action": "roll"}
            r = http.post(f"/v1/games/{st['id']}/actions", json=a)
            assert r.status_code == 200, (a, r.text)
            st = check(r.json())
        if st["status"] == "playing":
            st = check(http.post(f"/v1/games/{st['id']}/actions", json={"action": "end"}).json())
    else:
        st, events = play_out(http, st, rng)
        assert events[-1]["type"] == "finished" and max(st["score"]) >= body["match_length"]
        if body.get("trainer"):
            verdicts = [e["details"]["verdict"] for e in events if e["details"].get("verdict")]
            assert verdicts and all(v["mark"] in ("ok", "doubtful", "blunder") for v in verdicts)
            assert all(v["language"] == "en" and (v["why"] is None or v["why"]) for v in verdicts)
    assert st["status"] == "finished" and st["dice_commitment"] == commitment
    # the bots' decisions are the Evaluator service's work, charged to the player's key (in Redis)
    assert used() > before and used(OTHER) == other
    # the dice: every roll from the revealed seed
    v = http.post(f"/v1/games/{st['id']}/verify").json()
    assert v["verified"] is True and v["rolls"] > 0 and v["dice_seed"] == st["dice_seed"]
    # the export reads back as the same match
    mat = http.get(f"/v1/games/{st['id']}/export", params={"format": "mat"})
    assert mat.status_code == 200
    record = read_mat(mat.text)
    assert record.length == body["match_length"] and record.cut_games == 0
    # (a money session ended between games: the game it would have started is not in the file)
    assert len(record.games) == st["game"] - (body["match_length"] == 0 and st["result"]["reason"] == "ended")
    # as SGF, Tavla too (issue 44): its rules in RU, and a comment that gnubg cannot read it
    sgf = http.get(f"/v1/games/{st['id']}/export", params={"format": "sgf"})
    assert sgf.status_code == 200 and sgf.headers["content-type"].startswith("application/x-go-sgf")
    back_sgf = read_sgf(sgf.text)
    assert back_sgf.rules == Rules.from_dict(body.get("rules") or {}) and back_sgf.cut_games == 0
    assert [(g.winner, g.points) for g in back_sgf.games] == [(g.winner, g.points) for g in record.games]
    assert ("GNU Backgammon cannot read Tavla" in sgf.text) == (not back_sgf.rules.uses_cube)
    # as OGXM (issue 45): the same games through the reference codec (what OGXM cannot hold: Tavla, a
    # beaver, refused naming the field; a roll not played before a resignation is not kept)
    ogxm = http.get(f"/v1/games/{st['id']}/export", params={"format": "ogxm"})
    if ogxm.status_code == 200:
        back = read_ogxm(ogxm.content)
        assert [(g.winner, g.points) for g in back.games] == [(g.winner, g.points) for g in record.games]

        def moves(r: Any) -> list[list[str | None]]:  # a dance's empty play before a resignation: not kept
            return [[a.notation for a in g.actions if a.kind == "play" and a.notation] for g in r.games]

        assert moves(back) == moves(record) and any(moves(record))
    else:
        reason = problem(ogxm, 422)["errors"][0]
        assert reason["field"] in ("format", "cube") and (
            "Tavla" in reason["reason"] or "beaver" in reason["reason"]
        )
        assert reason["field"] == "cube" or not Rules.from_dict(body.get("rules") or {}).uses_cube
    # the event stream replays every transition, numbered, then ends
    with http.stream("GET", f"/v1/games/{st['id']}/events") as stream:
        text = "".join(stream.iter_text())
    names = [line[7:] for line in text.splitlines() if line.startswith("event: ")]
    assert names[0] == "created" and names[-1] == "end" and "finished" in names
    ids = [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]
    assert ids[:-1] == list(range(1, len(ids)))
    # the finished match as an analysis job of the caller (queued: no worker runs here)
    job = http.post(f"/v1/games/{st['id']}/analysis", json={"level": "0ply"})
    assert job.status_code == 202, job.text
    assert job.headers["Location"] == job.json()["href"] and job.json()["href"].startswith("/v1/analyses/")
    assert http.get(job.json()["href"]).json()["state"] in ("queued", "running")
    assert job.json()["href"].rsplit("/", 1)[1] in {j["id"] for j in http.get("/v1/jobs").json()["jobs"]}
    # listed as the caller's, not another key's
    listed = http.get("/v1/games", params={"status": "finished"}).json()["games"]
    assert st["id"] in {g["id"] for g in listed}
    assert st["id"] not in {
        g["id"] for g in http.get("/v1/games", headers={"X-API-Key": OTHER}).json()["games"]
    }


def test_cube_actions_and_resignations(platform: Platform) -> None:
    http = platform.http
    st = new_game(http, {"match_length": 0, "money": {"beaver": True}, "bot": {"level": "easy"}})
    gid = st["id"]
    r = http.post(f"/v1/games/{gid}/actions", json={"action": "roll"})
    st = check(r.json())
    seen: set[str] = set()
    for _ in range(200):  # the human doubles whenever it may: the bot takes, passes or beavers
        acts = st["actions"]
        if st["status"] == "finished":
            break
        if "double" in acts:
            a: dict[str, Any] = {"action": "double"}
        elif "play" in acts:
            a = {"action": "play", "notation": st["legal_plays"][0]["notation"]}
        elif "take" in acts:
            a = {"action": "take"}
        else:
            a = {"action": acts[0]} if acts[0] != "end" else {"action": "roll"}
        r = http.post(f"/v1/games/{gid}/actions", json=a)
        assert r.status_code == 200, (a, r.text)
        st = check(r.json())
        seen |= {e["type"] for e in st["events"] if e["player"] == 1}
        if a["action"] == "double":
            answer = [e["type"] for e in st["events"] if e["player"] == 1][:1]
            assert answer and answer[0] in ("take", "drop", "beaver"), st["events"]
        if {"take", "drop"} & seen and st["game"] >= 2:
            break
    assert {"take", "drop", "beaver"} & seen
    # a resignation is answered by the bot
    st = new_game(http, {"match_length": 5, "bot": {"level": "easy"}})
    st = check(http.post(f"/v1/games/{st['id']}/actions", json={"action": "roll"}).json())
    while st["actions"] == ["roll"]:  # a tie at the opening roll (one game in six): rolled again
        st = check(http.post(f"/v1/games/{st['id']}/actions", json={"action": "roll"}).json())
    if "play" in st["actions"]:
        st = check(
            http.post(
                f"/v1/games/{st['id']}/actions",
                json={"action": "play", "notation": st["legal_plays"][0]["notation"]},
            ).json()
        )
    assert "resign" in st["actions"]
    r = http.post(f"/v1/games/{st['id']}/actions", json={"action": "resign", "level": "backgammon"})
    st = check(r.json())
    answer = [e["type"] for e in st["events"] if e["type"] in ("accept", "reject")]
    # the most one can give: the bot takes it (3 points, more if it had doubled meanwhile)
    assert answer == ["accept"] and st["score"][0] == 0 and st["score"][1] >= 3


def test_client_dice(platform: Platform) -> None:
    http = platform.http
    st = new_game(
        http, {"rules": {"variant": "tavla"}, "dice": "client", "match_length": 1, "bot": {"level": "easy"}}
    )
    assert st["dice_commitment"] is None and st["actions"] == ["roll"]
    problem(http.post(f"/v1/games/{st['id']}/actions", json={"action": "roll"}), 422)  # the client's dice
    rng = random.Random(5)
    st, _ = play_out(http, st, rng)
    assert st["status"] == "finished" and st.get("dice_seed") is None
    problem(http.post(f"/v1/games/{st['id']}/verify"), 409)


def test_illegal_actions_change_nothing_and_retries_act_once(platform: Platform) -> None:
    http = platform.http
    st = new_game(http, {"match_length": 1, "bot": {"level": "easy"}})
    gid = st["id"]
    r = http.post(f"/v1/games/{gid}/actions", json={"action": "roll"}, headers={"Idempotency-Key": "r-1"})
    st = check(r.json())
    again = http.post(f"/v1/games/{gid}/actions", json={"action": "roll"}, headers={"Idempotency-Key": "r-1"})
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == r.json()
    other_body = http.post(
        f"/v1/games/{gid}/actions", json={"action": "double"}, headers={"Idempotency-Key": "r-1"}
    )
    assert problem(other_body, 422)["errors"][0]["field"] == "Idempotency-Key"
    while "play" not in st["actions"]:  # the bot opened: the human rolls
        st = check(http.post(f"/v1/games/{gid}/actions", json={"action": "roll"}).json())
    before = http.get(f"/v1/games/{gid}").json()
    # plays and the dice they need: the first that this roll's dice cannot make (a notation check alone
    # would take "24/23 24/22" for illegal where it hits, its "*" left out)
    needs = {"24/23 24/22": {1, 2}, "13/1": {3}, "6/1 6/2": {4, 5}, "8/2 6/2": {4, 6}}
    bad = next(n for n, roll in needs.items() if roll != set(st["dice"]))
    p = problem(http.post(f"/v1/games/{gid}/actions", json={"action": "play", "notation": bad}), 422)
    assert p["type"].endswith("illegal-play") and p["errors"][0]["field"] and "legal" in p["detail"]
    p = problem(http.post(f"/v1/games/{gid}/actions", json={"action": "take"}), 409)
    assert p["type"].endswith("game-state") and "possible" in p["detail"]
    # in the caller's language (Accept-Language, as the web client and the CLI send it)
    de = {"Accept-Language": "de"}
    p = problem(
        http.post(f"/v1/games/{gid}/actions", json={"action": "play", "notation": bad}, headers=de), 422
    )
    assert "ist hier kein erlaubter Zug mit" in p["detail"] and p["errors"][0]["reason"] == p["detail"], p
    p = problem(http.post(f"/v1/games/{gid}/actions", json={"action": "take"}, headers=de), 409)
    assert p["detail"].startswith("'take' ist jetzt nicht möglich: das Spiel wartet auf deinen Zug mit "), p
    problem(http.post(f"/v1/games/{gid}/actions", json={"action": "fly"}), 422)
    problem(http.post(f"/v1/games/{gid}/actions", json={"action": "play"}), 422)
    problem(http.post(f"/v1/games/{gid}/actions", json={"action": "play", "notation": "x" * 65}), 422)
    after = http.get(f"/v1/games/{gid}").json()
    assert same(after, before)
    # another key: 404 everywhere
    other = {"X-API-Key": OTHER}
    for r in (
        http.get(f"/v1/games/{gid}", headers=other),
        http.post(f"/v1/games/{gid}/actions", json={"action": "roll"}, headers=other),
        http.post(f"/v1/games/{gid}/verify", headers=other),
        http.get(f"/v1/games/{gid}/export", headers=other),
    ):
        assert problem(r, 404)["errors"][0]["field"] == "game_id"
    # bad settings name the field
    assert (
        problem(http.post("/v1/games", json={"match_length": 99}), 422)["errors"][0]["field"]
        == "match_length"
    )
    assert (
        problem(http.post("/v1/games", json={"bot": {"level": "god"}}), 422)["errors"][0]["field"]
        == "bot.level"
    )
    tavla_money = {"rules": {"variant": "tavla"}, "match_length": 0}
    assert problem(http.post("/v1/games", json=tavla_money), 422)["errors"]
    problem(http.post(f"/v1/games/{gid}/verify"), 409)  # not finished: the seed is secret


def test_a_game_continues_after_a_restart(platform: Platform) -> None:
    http = platform.http
    st = new_game(http, {"match_length": 1, "bot": {"level": "easy"}, "clock": True})
    assert st["clock"]["remaining"] == [120.0, 120.0]  # 2 minutes per point
    rng = random.Random(11)
    for _ in range(6):
        st = check(http.post(f"/v1/games/{st['id']}/actions", json=random_action(st, rng)).json())
        st.pop("events")
    before = check(http.get(f"/v1/games/{st['id']}").json())
    platform.stop()
    platform.start()
    after = check(platform.http.get(f"/v1/games/{st['id']}").json())
    assert same(after, before)
    assert after["clock"]["remaining"][1] == before["clock"]["remaining"][1]  # the bot's time is not running
    assert after["clock"]["remaining"][0] <= before["clock"]["remaining"][0]  # the player's still is
    st, _ = play_out(platform.http, after, rng)
    assert st["status"] == "finished"
    assert platform.http.post(f"/v1/games/{st['id']}/verify").json()["verified"] is True


def test_players_of_a_key_and_their_games(platform: Platform) -> None:
    """``/v1/players``: made, listed, renamed and deleted by their key only; a game recorded for a player
    names it, one for another key's player is refused naming the field, and deleting the player deletes its
    games (issue 29's first step)."""
    http = platform.http
    other = httpx.Client(base_url=http.base_url, headers={"X-API-Key": OTHER}, timeout=30)
    r = http.post("/v1/players", json={"name": "  Ayşe "})
    assert r.status_code == 201, r.text
    ann = r.json()
    assert ann["name"] == "Ayşe" and r.headers["Location"] == ann["href"] == f"/v1/players/{ann['id']}"
    bob = http.post("/v1/players", json={"name": "Bob"}).json()
    assert [p["id"] for p in http.get("/v1/players").json()["players"]][:2] == [bob["id"], ann["id"]]
    page = http.get("/v1/players", params={"limit": 1}).json()
    assert len(page["players"]) == 1 and page["next_cursor"]
    assert (
        problem(http.get("/v1/players", params={"cursor": "nonsense"}), 422)["errors"][0]["field"] == "cursor"
    )
    for body, field in (({"name": ""}, "name"), ({"name": "   "}, "name"), ({"nom": "x"}, "nom")):
        assert field in {e["field"] for e in problem(http.post("/v1/players", json=body), 422)["errors"]}, (
            body
        )

    # a retried request with an Idempotency-Key makes one player; the key with another body is refused
    once = {"Idempotency-Key": "make-carol"}
    first = http.post("/v1/players", json={"name": "Carol"}, headers=once)
    again = http.post("/v1/players", json={"name": "Carol"}, headers=once)
    assert first.status_code == again.status_code == 201 and again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["Location"] == first.json()["href"]
    other_body = problem(http.post("/v1/players", json={"name": "Dave"}, headers=once), 422)
    assert other_body["errors"][0]["field"] == "Idempotency-Key"
    assert http.delete(first.json()["href"]).status_code == 204

    # another key sees none of them
    assert problem(other.get(ann["href"]), 404)["errors"][0]["field"] == "player_id"
    assert problem(other.patch(ann["href"], json={"name": "x"}), 404)
    assert problem(other.delete(ann["href"]), 404)
    assert ann["id"] not in {p["id"] for p in other.get("/v1/players").json()["players"]}
    renamed = http.patch(ann["href"], json={"name": "Ayşe K."}).json()
    assert renamed["name"] == "Ayşe K." and http.get(ann["href"]).json()["name"] == "Ayşe K."

    # games recorded for a player
    body = {"match_length": 1, "bot": {"level": "easy"}}
    mine = new_game(http, {**body, "player": ann["id"]})
    assert mine["player"] == ann["id"] and http.get(mine["href"]).json()["player"] == ann["id"]
    unrecorded = new_game(http, body)
    assert "player" not in unrecorded
    # the list of one player's games (the web's home shows its player's running game only)
    listed = http.get("/v1/games", params={"status": "playing", "player": ann["id"]}).json()["games"]
    assert [(g["id"], g["player"]) for g in listed] == [(mine["id"], ann["id"])]
    everyone = http.get("/v1/games", params={"status": "playing"}).json()["games"]
    assert {mine["id"], unrecorded["id"]} <= {g["id"] for g in everyone}
    refused = problem(other.post("/v1/games", json={**body, "player": ann["id"]}), 422)
    assert refused["errors"][0]["field"] == "player"

    # statistics: folded from each answer's events as the game is saved
    from pulvezar.play.statistics import achievements, fold, report

    st, events = play_out(http, new_game(http, {**body, "player": bob["id"]}), random.Random(29))
    stats = http.get(f"{bob['href']}/statistics").json()
    month = time.strftime("%Y-%m", time.gmtime())
    context = {"level": "easy", "match_length": 1, "opponent_rating": 1200.0, "month": month, "time": 1.0}
    learner = ("pr", "frequent_mistakes", "recent_matches", "exercises")  # test_learner_analyses.py and below
    assert {k: v for k, v in stats.items() if k not in learner} == report(fold(None, events, context), month)
    assert [(m["source"], m["game_id"], m["won"]) for m in stats["recent_matches"]] == [
        ("game", st["id"], st["result"]["winner"] == 0)
    ]
    assert stats["pr"]["matches"] == 0 and stats["frequent_mistakes"] == []
    assert stats["rated_games"] == stats["games_played"]
    assert stats["rating"]["ladder"][-1] == {
        "month": month,
        "rating": stats["rating"]["value"],
        "games": stats["games_played"],
    }

    got = http.get(f"{bob['href']}/achievements", headers={"Accept-Language": "de"}).json()
    want = achievements(fold(None, events, context), "de")
    assert [(a["id"], a["condition"], a["reached"] is None) for a in got["achievements"]] == [
        (a["id"], a["condition"], a["reached"] is None) for a in want
    ]
    assert got["reached"] == sum(a["reached"] is not None for a in want)
    assert problem(other.get(f"{bob['href']}/achievements"), 404)

    # an adaptive bot for a player plays at the player's rating (without a player, a rating is required)
    adaptive = {"match_length": 1, "bot": {"level": "adaptive"}}
    assert problem(http.post("/v1/games", json=adaptive), 422)["errors"][0]["field"] == "bot.rating"
    ad = new_game(http, {**adaptive, "player": bob["id"]})
    # before an analysed match: at the player's rating (services/gateway/services/adaptive.py)
    rating = ad["settings"]["bot"]["rating"]
    assert ad["settings"]["bot"]["rating_kind"] == "elo" and abs(rating - stats["rating"]["value"]) < 0.1
    assert ad["bot"]["level"] == level_for_rating(rating)[0]
    assert stats["matches_played"] == 1 and stats["matches_won"] == int(st["result"]["winner"] == 0)
    assert stats["games_played"] >= 1 and stats["by_level"]["easy"]["matches_played"] == 1
    assert problem(other.get(f"{bob['href']}/statistics"), 404)
    reset = http.post(f"{bob['href']}/statistics/reset").json()
    assert reset["games_played"] == 0 and http.get(f"{bob['href']}/statistics").json() == reset

    # deleting the player deletes what is recorded for it, and nothing else
    assert http.delete(ann["href"]).status_code == 204
    assert problem(http.get(ann["href"]), 404) and problem(http.get(mine["href"]), 404)
    assert http.get(unrecorded["href"]).status_code == 200 and http.get(bob["href"]).status_code == 200
    assert problem(http.delete(ann["href"]), 404)
    other.close()


def stored_puzzle(database_url: str, date: str, kind: str) -> dict[str, Any]:
    """A daily puzzle in the durable store as the daily task writes it (``DailyPuzzle.to_json()``), with its
    candidates from the legal plays of the starting position and 3-1."""
    import datetime as dt

    from pulvezar import Rules
    from services.store.archive import DailyRecords

    start = Position.start()
    plays = {p.notation: p.position.position_id for p in Rules.international().legal_plays(start, (3, 1))}
    base = {
        "date": date, "kind": kind, "rules": "international", "position_id": start.position_id,
        "xgid": str(XGID.from_position(start, dice=(3, 1) if kind == "position" else "00")),
        "dice": [3, 1] if kind == "position" else None, "match_length": 0, "score": [0, 0], "cube_value": 1,
        "cube_owner": "centre", "game": 1, "move": 1, "position_type": {"kind": "opening", "side": None},
        "reason": {"en": "why", "de": "warum", "tr": "neden"}, "selection": {}, "settings": {}, "version": 1,
        "seed": dt.date.fromisoformat(date).strftime("%Y%m%d"),
    }  # fmt: skip
    if kind == "position":
        base["candidates"] = [
            {"play": "8/5 6/5", "position_id": plays["8/5 6/5"], "loss": 0.0},
            {"play": "24/21 6/5", "position_id": plays["24/21 6/5"], "loss": 0.09},
        ]
        base["answer"] = {"play": "8/5 6/5", "position_id": plays["8/5 6/5"], "equity": 0.15}
    else:
        base["candidates"] = [
            {"action": a, "equity": e} for a, e in (("no double", 0.5), ("double/take", 0.6))
        ]
        base["answer"] = {"action": "No double, take", "double": False, "response": "take",
                          "costs": {"no double": 0.0, "double": 0.1, "take": 0.0, "pass": 0.4}}  # fmt: skip
    DailyRecords(database_url).put(date, "international", kind, json.dumps(base))
    return base


def test_daily_attempts_of_a_player(platform: Platform) -> None:
    """The daily puzzle hides its answer from a player until they attempt it; the first attempt counts for
    the statistics, streaks and the calendar, a retried request with its Idempotency-Key is answered as the
    first was, another key's player is refused (issue 29)."""
    import datetime as dt

    http = platform.http
    today = dt.datetime.now(dt.UTC).date()
    yesterday = (today - dt.timedelta(days=1)).isoformat()
    for date in (yesterday, today.isoformat()):
        stored_puzzle(platform.database_url, date, "position")
    stored_puzzle(platform.database_url, yesterday, "cube")
    ann = http.post("/v1/players", json={"name": "Ann"}).json()
    # another net's recheck of today's puzzle (issue 41): shown like the answer, hidden until attempted
    from pulvezar.eval.evaluator import default_model_path
    from pulvezar.eval.provenance import file_sha256
    from services.store.archive import DailyRecords

    served = file_sha256(default_model_path())  # the gateway's served net: the default one
    when = "2026-12-06T10:00:00+00:00"
    rc = {"model": "pulvezar-v4", "agrees": False, "answer": {"play": "24/21 6/5"}, "checked_at": when}
    DailyRecords(platform.database_url).put_recheck(
        today.isoformat(), "international", "position", served, False, json.dumps(rc)
    )

    anonymous = http.get("/v1/daily/today").json()
    assert anonymous["answer"]["play"] == "8/5 6/5" and "attempted" not in anonymous  # as before
    assert anonymous["recheck"] == {
        "model": "pulvezar-v4", "model_sha256": served, "answer": "24/21 6/5", "agrees": False,
        "checked_at": when, "values": {"play": "24/21 6/5"},
    }  # fmt: skip
    before = http.get("/v1/daily/today", params={"player": ann["id"]}).json()
    assert before["attempted"] is False and before["answer"] is None and before["reason"] is None
    assert before["recheck"] is None
    assert all(set(c) == {"play", "position_id"} for c in before["candidates"])
    assert (
        problem(http.get("/v1/daily/today", params={"player": "pnobody"}), 422)["errors"][0]["field"]
        == "player"
    )

    url = f"/v1/daily/{yesterday}/attempts"
    first = http.post(
        url, json={"player": ann["id"], "notation": "8/5 6/5"}, headers={"Idempotency-Key": "a1"}
    )
    assert first.status_code == 200, first.text
    f = first.json()
    assert (f["correct"], f["first_attempt"], f["attempt"], f["loss"], f["loss_exact"]) == (
        True,
        True,
        1,
        0.0,
        True,
    )
    again = http.post(
        url, json={"player": ann["id"], "notation": "8/5 6/5"}, headers={"Idempotency-Key": "a1"}
    )
    assert again.json() == first.json() and again.headers.get("Idempotent-Replayed") == "true"
    second = http.post(url, json={"player": ann["id"], "notation": "24/21 6/5"}).json()
    assert (second["attempt"], second["first_attempt"], second["correct"], second["loss"]) == (
        2,
        False,
        False,
        0.09,
    )
    wrong_today = http.post(
        f"/v1/daily/{today.isoformat()}/attempts", json={"player": ann["id"], "notation": "24/21 6/5"}
    ).json()
    assert wrong_today["first_attempt"] and not wrong_today["correct"]
    cube = http.post(
        f"/v1/daily/{yesterday}/attempts",
        json={"player": ann["id"], "kind": "cube", "double": True, "response": "take"},
    ).json()
    assert (cube["correct"], cube["loss"]) == (False, 0.1)
    after = http.get("/v1/daily/today", params={"player": ann["id"]}).json()
    assert after["attempted"] is True and after["answer"]["play"] == "8/5 6/5"
    assert after["recheck"] == anonymous["recheck"]

    for body, field in (
        ({"player": ann["id"], "notation": "8/3"}, "notation"),
        ({"player": ann["id"]}, "notation"),
        ({"player": ann["id"], "kind": "cube", "double": True}, "response"),
        ({"player": "pnobody", "notation": "8/5 6/5"}, "player"),
    ):
        assert problem(http.post(url, json=body), 422)["errors"][0]["field"] == field, body
    assert problem(http.post("/v1/daily/2026-13-01/attempts", json={"player": ann["id"]}), 422)
    future = (today + dt.timedelta(days=1)).isoformat()
    assert (
        problem(http.post(f"/v1/daily/{future}/attempts", json={"player": ann["id"]}), 422)["errors"][0][
            "field"
        ]
        == "date"
    )
    other = httpx.Client(base_url=http.base_url, headers={"X-API-Key": OTHER}, timeout=30)
    assert (
        problem(other.post(url, json={"player": ann["id"], "notation": "8/5 6/5"}), 422)["errors"][0]["field"]
        == "player"
    )
    other.close()

    stats = http.get(f"{ann['href']}/statistics").json()["daily"]
    assert stats["international"] == {
        "tried": 2,
        "solved": 1,
        "streak": 0,
        "best_streak": 1,
        "mean_loss": 0.045,
    }
    assert stats["cube"]["tried"] == 1 and stats["cube"]["solved"] == 0
    reached = {
        a["id"] for a in http.get(f"{ann['href']}/achievements").json()["achievements"] if a["reached"]
    }
    assert reached == {"daily_first_try"}
    cal = http.get(f"{ann['href']}/daily", params={"month": yesterday[:7]}).json()
    states = {d["date"]: d["state"] for d in cal["days"]}
    assert states[yesterday] == "solved" and all(s == "not_tried" for d, s in states.items() if d < yesterday)
    if today.isoformat()[:7] == yesterday[:7]:
        assert states[today.isoformat()] == "missed" and max(states) == today.isoformat()
    assert problem(http.get(f"{ann['href']}/daily", params={"month": "2026-13"}), 422)

    # flash cards: made from the two puzzles missed at the first attempt, due tomorrow
    tomorrow = (today + dt.timedelta(days=1)).isoformat()
    deck = http.get(f"{ann['href']}/cards").json()
    assert deck == {"count": 2, "due_today": 0, "next_due": tomorrow, "learned": 0}
    round_ = http.get(f"{ann['href']}/cards/due").json()["cards"]  # none due: the ten due earliest
    assert sorted(c["source"] for c in round_) == [
        f"daily:{yesterday}:international:cube",
        f"daily:{today.isoformat()}:international:position",
    ]
    card = next(c for c in round_ if c["decision"]["kind"] == "position")
    assert "answer" not in card["decision"] and all(
        set(c) == {"play", "position_id"} for c in card["decision"]["candidates"]
    )
    href = f"{ann['href']}/cards/{card['id']}/answers"
    right = http.post(href, json={"notation": "6/5 8/5"}, headers={"Idempotency-Key": "c1"})
    assert right.status_code == 200, right.text
    assert (right.json()["correct"], right.json()["interval"], right.json()["next_due"]) == (
        True,
        1,
        tomorrow,
    )
    replay = http.post(href, json={"notation": "6/5 8/5"}, headers={"Idempotency-Key": "c1"})
    assert replay.json() == right.json() and replay.headers.get("Idempotent-Replayed") == "true"
    again = http.post(href, json={"notation": "8/5 6/5"}).json()  # solved twice in a row: 6 days
    assert (again["interval"], again["next_due"]) == (6, (today + dt.timedelta(days=6)).isoformat())
    missed = http.post(href, json={"notation": "24/21 6/5"}).json()
    assert (missed["correct"], missed["loss"], missed["interval"], missed["next_due"]) == (
        False,
        0.09,
        1,
        tomorrow,
    )
    assert problem(http.post(href, json={"notation": "8/3"}), 422)["errors"][0]["field"] == "notation"
    assert problem(http.post(f"{ann['href']}/cards/cnone/answers", json={"notation": "8/5 6/5"}), 404)
    other = httpx.Client(base_url=http.base_url, headers={"X-API-Key": OTHER}, timeout=30)
    assert problem(other.get(f"{ann['href']}/cards"), 404)
    assert problem(other.post(href, json={"notation": "8/5 6/5"}), 404)
    other.close()
    assert http.delete(ann["href"]).status_code == 204  # its attempts and cards go with it


def test_hints_and_checks_during_play(platform: Platform) -> None:
    """Help during play (issue 30): a hint gives the engine's candidates and is counted against the match's
    limit; a check values a play without making it, with the warning threshold; neither moves the game."""
    http = platform.http
    st = new_game(http, {"match_length": 3, "bot": {"level": "easy"}, "trainer": True, "hint_limit": 1,
                         "warn_at": 0.08})  # fmt: skip
    href = st["href"]
    assert (st["hints_used"], st["hints_left"]) == (0, 1)
    r = http.post(f"{href}/actions", json={"action": "hint"})
    assert problem(r, 409)["errors"][0]["field"] == "action"  # the opening roll first
    rng = random.Random(30)
    for _ in range(500):
        if "play" in st["actions"] and len(st["legal_plays"]) > 1:
            break
        acts = [a for a in st["actions"] if a not in ("resign", "end", "double")] or st["actions"]
        r = http.post(f"{href}/actions", json=random_action({**st, "actions": acts}, rng))
        assert r.status_code == 200, r.text
        st = r.json()
    assert "play" in st["actions"]
    before = http.get(href).json()
    checked = http.post(
        f"{href}/actions", json={"action": "check", "notation": st["legal_plays"][0]["notation"]}
    )
    assert checked.status_code == 200, checked.text
    verdict = checked.json()["check"]
    assert verdict["decision"] == "play" and verdict["warn"] == (verdict["loss"] >= 0.08) and "why" in verdict
    assert checked.json()["events"] == [] and same(http.get(href).json(), before)  # nothing made
    bad = http.post(f"{href}/actions", json={"action": "check", "notation": "24/1"})
    assert problem(bad, 422)["errors"][0]["field"] == "notation"
    assert problem(http.post(f"{href}/actions", json={"action": "hint", "notation": "8/5"}), 422)
    hinted = http.post(f"{href}/actions", json={"action": "hint"}).json()
    legal = {p["notation"] for p in st["legal_plays"]}
    assert (
        hinted["hint"] and {c["notation"] for c in hinted["hint"]} <= legal and hinted["hint"][0]["loss"] == 0
    )
    assert (hinted["hints_used"], hinted["hints_left"]) == (1, 0)
    assert [e["type"] for e in hinted["events"]] == ["hint"]
    assert "no hints left" in problem(http.post(f"{href}/actions", json={"action": "hint"}), 409)["detail"]
    listed = {g["id"]: g for g in http.get("/v1/games").json()["games"]}
    assert listed[st["id"]]["hints_used"] == 1
    played = http.post(f"{href}/actions", json={"action": "play", "notation": hinted["hint"][0]["notation"]})
    assert played.status_code == 200 and played.json()["hints_used"] == 1


def test_the_result_card_of_a_game(platform: Platform) -> None:
    """A game's result card as a PNG to share (issue 30): drawn once a game has ended, per language."""
    http = platform.http
    fresh = new_game(http, {"match_length": 1, "bot": {"level": "easy"}})
    assert problem(http.get(f"{fresh['href']}/card.png"), 409)["errors"][0]["field"] == "game_id"
    st, _ = play_out(http, fresh, random.Random(41))
    r = http.get(f"{st['href']}/card.png")
    assert r.status_code == 200 and r.headers["content-type"] == "image/png" and r.content[:4] == b"\x89PNG"
    assert http.get(f"{st['href']}/card.png", params={"game": 1}).content == r.content
    german = http.get(f"{st['href']}/card.png", headers={"Accept-Language": "de"})
    assert german.status_code == 200 and german.content != r.content
    assert (
        problem(http.get(f"{st['href']}/card.png", params={"game": 2}), 422)["errors"][0]["field"] == "game"
    )
    other = httpx.Client(base_url=http.base_url, headers={"X-API-Key": OTHER}, timeout=30)
    assert other.get(f"{st['href']}/card.png").status_code == 404
    other.close()


def test_lessons_with_a_players_progress(platform: Platform) -> None:
    """The five lessons over REST (issue 30): steps in the request's language without their plays, a wrong
    play refused, a player's progress up to the lesson's completion."""
    http = platform.http
    listed = http.get("/v1/lessons").json()["lessons"]
    assert [x["id"] for x in listed] == ["pip-counting", "openings", "game-plans", "blot-risk", "bearing-off"]
    assert all(x["progress"] is None for x in listed)
    german = http.get("/v1/lessons/openings", headers={"Accept-Language": "de"}).json()
    assert german["title"] == "Eröffnungen" and german["items"][1]["text"] == "Baue mit 3-1 den 5er-Punkt."
    assert all("play" not in step for step in german["items"]) and german["items"][1]["dice"] == [3, 1]
    player = http.post("/v1/players", json={"name": "Lerner"}).json()
    url = "/v1/lessons/openings/steps/{}/answers"
    wrong = http.post(url.format(1), json={"notation": "13/10 6/5", "player": player["id"]}).json()
    assert wrong == {"correct": False, "expected": None, "progress": {"done": [], "completed": None}}
    assert (
        problem(http.post(url.format(1), json={"notation": "24/18"}), 422)["errors"][0]["field"] == "notation"
    )
    assert problem(http.post(url.format(9), json={}), 422)["errors"][0]["field"] == "step"
    assert problem(http.get("/v1/lessons/chess"), 404)["errors"][0]["field"] == "lesson_id"
    assert problem(http.post(url.format(0), json={"player": "p0"}), 422)["errors"][0]["field"] == "player"
    answers = [{}, {"notation": "8/5 6/5"}, {"notation": "8/4 6/4"}, {"notation": "13/7 8/7"}]
    for n, given in enumerate(answers):
        r = http.post(url.format(n), json={**given, "player": player["id"]}).json()
        assert r["correct"] is True and r["progress"]["done"] == list(range(n + 1))
    assert r["progress"]["completed"] is not None
    mine = {x["id"]: x for x in http.get("/v1/lessons", params={"player": player["id"]}).json()["lessons"]}
    assert mine["openings"]["progress"]["completed"] and mine["bearing-off"]["progress"]["done"] == []


def test_exercises_with_a_players_counters(platform: Platform) -> None:
    """Exercises over REST (issue 30): the answer hidden until answered, the first answer counted for the
    player (counters and streaks, also in the statistics), a later one not; bad input names the field."""
    from pulvezar import Position

    http = platform.http
    player = http.post("/v1/players", json={"name": "Üben"}).json()
    e = http.get("/v1/exercises/pip-count/next", params={"player": player["id"]}).json()
    assert "answer" not in e and e["time_limit_s"] == 20.0
    pips = list(Position.from_position_id(e["position_id"]).pips())
    r = http.post(f"/v1/exercises/pip-count/{e['id']}/answers", json={"pips": pips}).json()
    assert r["correct"] is True and r["first_attempt"] is True and r["answer"] == {"pips": pips}
    assert r["counters"] == {"tried": 1, "correct": 1, "streak": 1, "best_streak": 1}
    again = http.post(f"/v1/exercises/pip-count/{e['id']}/answers", json={"pips": [1, 1]}).json()
    assert again["first_attempt"] is False and again["attempt"] == 2 and again["counters"] is None
    blind = http.get("/v1/exercises/pip-count/next", params={"screen_reader": True}).json()
    assert blind["time_limit_s"] is None

    t = http.get("/v1/exercises/take-point/next", params={"player": player["id"]}).json()
    assert t["match_length"] and len(t["score"]) == 2 and t["cube_value"] in (1, 2)
    wrong = http.post(f"/v1/exercises/take-point/{t['id']}/answers", json={"take_point": 0.99}).json()
    assert wrong["correct"] is False and wrong["counters"]["streak"] == 0 and wrong["details"]["error"] > 0.03
    b = http.get("/v1/exercises/bear-off/next", params={"player": player["id"]}).json()
    bad = http.post(f"/v1/exercises/bear-off/{b['id']}/answers", json={"notation": "24/18"})
    assert problem(bad, 422)["errors"][0]["field"] == "notation"
    assert problem(http.post(f"/v1/exercises/take-point/{b['id']}/answers", json={}), 404)
    assert problem(http.post("/v1/exercises/bear-off/x0123/answers", json={}), 404)
    assert problem(http.get("/v1/exercises/chess/next"), 422)
    foreign = http.get("/v1/exercises/bear-off/next", params={"player": "p0"})
    assert problem(foreign, 422)["errors"][0]["field"] == "player"
    stats = http.get(f"{player['href']}/statistics").json()["exercises"]
    assert stats["pip-count"]["correct"] == 1 and stats["take-point"]["tried"] == 1


def test_the_opening_quiz(platform: Platform) -> None:
    """The opening quiz (issue 30): a random roll of the shipped book, the book's best play right, a
    player's streak kept."""
    from pulvezar.book.model import book_path, read_book

    http = platform.http
    book = {r.roll: r for r in read_book(book_path("international")).rolls}
    q = http.get("/v1/opening-book/quiz").json()
    assert q["roll"] in book and q["dice"] == list(book[q["roll"]].dice)
    player = http.post("/v1/players", json={"name": "Quiz"}).json()
    best = book["31"].candidates[0]
    right = http.post("/v1/opening-book/quiz/answers",
                      json={"roll": "31", "notation": best.play, "player": player["id"]}).json()  # fmt: skip
    assert right["correct"] is True and right["best"] == best.play and right["loss"] == 0
    assert right["counters"] == {"tried": 1, "correct": 1, "streak": 1, "best_streak": 1}
    roll = next(r for r, entry in book.items() if len(entry.candidates) > 1)
    other = book[roll].candidates[1]
    wrong = http.post(
        "/v1/opening-book/quiz/answers",
        json={"roll": roll[::-1], "notation": other.play, "player": player["id"]},
    ).json()
    assert wrong["correct"] is False and wrong["loss"] == other.loss and wrong["counters"]["streak"] == 0
    bad = (
        ({"roll": "31", "notation": "24/18"}, "notation"),
        ({"roll": "77", "notation": "8/5"}, "roll"),
        ({"roll": "31", "notation": "8/5 6/5", "player": "p0"}, "player"),
    )
    for body, field in bad:
        r = http.post("/v1/opening-book/quiz/answers", json=body)
        assert problem(r, 422)["errors"][0]["field"] == field, body
    stats = http.get(f"{player['href']}/statistics").json()["exercises"]
    assert stats["opening-quiz-international"]["tried"] == 2


def test_play_from_a_position_replay_and_play_from_here(platform: Platform) -> None:
    """Issue 30: a free game from an ID (board, cube, score, dice), its export with the set-up, the replay of
    a finished match and a free game from one of its steps; bad starts are problems naming the field."""
    http = platform.http
    player = http.post("/v1/players", json={"name": "Setup"}).json()
    nine = "4HPwATDgc/ABMA:QYkqASAAIAAA"  # a 9-point match at 2-4, player 1 has rolled 52 on a 2-cube
    st = new_game(http, {"start": {"position": nine}, "bot": {"level": "easy"}, "player": player["id"]})
    assert (st["match_length"], st["score"], st["dice"], st["cube"]["value"]) == (9, [4, 2], [5, 2], 2)
    assert st["settings"]["free"] is True and st["start"]["dice"] == [5, 2] and st["to_act"] == 0
    assert "player" in st and st["actions"] == ["play", "resign"]
    sgf = http.get(f"{st['href']}/export", params={"format": "sgf"}).text
    assert "AE[a:y]" in sgf and "CV[2]" in sgf and "MI[length:9][game:0][ws:4][bs:2]" in sgf
    assert read_mat(http.get(f"{st['href']}/export").text).games[0].setup is not None
    listed = {g["id"]: g for g in http.get("/v1/games").json()["games"]}
    assert listed[st["id"]]["free"] is True
    # the bot moves first when the start gives it the roll; a free game is not counted for the player
    theirs = new_game(http, {"start": {"position": nine, "side": "opponent"}, "bot": {"level": "easy"}})
    assert theirs["to_act"] == 0 and [e["type"] for e in theirs["events"]][:1] == ["play"]
    play_out(http, st, random.Random(7))
    stats = http.get(f"/v1/players/{player['id']}/statistics").json()
    assert stats["games_played"] == 0
    assert st["id"] not in {
        m.get("game_id") for m in http.get(f"/v1/players/{player['id']}/matches").json()["matches"]
    }

    # bad starts
    for body, field, status in (
        ({"start": {"position": "nonsense"}}, "start.position", 422),
        ({"start": {"position": nine}, "match_length": 5}, "start.position", 422),
        ({"start": {"position": nine}, "rules": {"variant": "tavla"}}, "start.position", 422),
        ({"start": {"position": nine}, "free": False}, "free", 422),
        ({"start": {}}, "start", 422),
        ({"start": {"position": nine, "step": 3}}, "start.step", 422),
        ({"start": {"game": st["id"]}}, "start.step", 422),
        ({"start": {"game": "gnone", "step": 0}}, "game_id", 404),
    ):
        errors = problem(http.post("/v1/games", json=body), status)["errors"]
        assert field in {e["field"] for e in errors}, (body, errors)

    # a finished match's replay, and a free game from one of its steps at the same score, cube and dice
    done, _ = play_out(http, new_game(http, {"match_length": 3, "bot": {"level": "easy"}}), random.Random(3))
    running = new_game(http, {"match_length": 1, "bot": {"level": "easy"}})
    assert problem(http.get(f"{running['href']}/replay"), 409)["errors"][0]["field"] == "game_id"
    other = httpx.Client(base_url=http.base_url, headers={"X-API-Key": OTHER}, timeout=30)
    assert other.get(f"{done['href']}/replay").status_code == 404
    assert problem(other.post("/v1/games", json={"start": {"game": done["id"], "step": 1}}), 404)
    other.close()
    replay = http.get(f"{done['href']}/replay").json()
    steps = replay["steps"]
    assert [s["step"] for s in steps] == list(range(len(steps))) and replay["score"] == done["score"]
    plays = [s for s in steps if s["action"] == "play" and s["player"] == 0 and s["start"]]
    step = plays[len(plays) // 2]
    here = new_game(http, {"start": {"game": done["id"], "step": step["step"]}})
    assert here["board"]["gnubg_id"] == step["gnubg_id"] and here["dice"] == step["dice"]
    assert here["settings"]["bot"] == done["settings"]["bot"] and here["settings"]["free"] is True
    assert here["score"] == step["score"] and here["match_length"] == 3
    assert step["notation"] in {p["notation"] for p in here["legal_plays"]}
    first = next(s for s in steps if s["start"] is None)
    errors = problem(http.post("/v1/games", json={"start": {"game": done["id"], "step": first["step"]}}), 422)
    assert errors["errors"][0]["field"] == "start.step"
    errors = problem(http.post("/v1/games", json={"start": {"game": done["id"], "step": len(steps)}}), 422)
    assert errors["errors"][0]["field"] == "start.step"


def test_the_trainer_checks_and_hints_a_cube_action_and_the_position_type(platform: Platform) -> None:
    """Issue 44: a double checked before it is made (the verdict with warn, nothing made), the hint at a cube
    decision names the right action with equities (counted), the position type in your view; bad checks are
    problems naming the field; a double sent with hold is held, then made anyway; the end summary's PR."""
    http = platform.http
    opening = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"  # money, centred cube, to roll or double
    st = new_game(http, {"start": {"position": opening}, "bot": {"level": "easy"}, "trainer": True,
                         "hint_limit": 3})  # fmt: skip
    assert st["actions"][:2] == ["roll", "double"]
    assert st["position_type"] == {"kind": "opening", "side": None}
    act = f"{st['href']}/actions"
    v = http.post(act, json={"action": "check", "decision": "double"}).json()
    assert v["check"]["warn"] and v["check"]["best"] == "no double" and v["check"]["why"]
    assert v["actions"] == st["actions"] and v["hints_left"] == 3  # nothing made
    h = http.post(act, json={"action": "hint"}).json()
    assert h["cube_hint"]["best"] == "roll" and h["hints_left"] == 2 and "hint" not in h
    assert h["cube_hint"]["equities"]["roll"] > h["cube_hint"]["equities"]["double_take"]
    take = http.post(act, json={"action": "check", "decision": "take"})
    assert problem(take, 422)["errors"][0]["field"] == "decision"
    bad = http.post(act, json={"action": "roll", "decision": "double"})
    assert problem(bad, 422)["errors"][0]["field"] == "decision"
    r = http.post(act, json={"action": "check", "decision": "double", "notation": "8/5 6/5"})
    assert problem(r, 422)["errors"][0]["field"] == "decision"
    assert problem(http.post(act, json={"action": "check", "decision": "roll", "hold": True}), 422)
    # held: one request, nothing made, the verdict kept; sent again without hold it is made anyway
    held = http.post(act, json={"action": "double", "hold": True}).json()
    assert held["held"]["warn"] and held["held"]["best"] == "no double" and held["held"]["why"]
    assert [e["type"] for e in held["events"]] == ["held"] and held["cube"] == st["cube"]
    assert held["actions"] == st["actions"]
    made = http.post(act, json={"action": "double"}).json()
    assert "held" not in made and made["events"][0]["type"] == "double"
    assert made["events"][0]["details"]["anyway"] is True and made["events"][0]["details"]["verdict"]["warn"]
    if made["status"] == "playing":
        assert http.post(f"{st['href']}/forfeit").status_code == 200
    end = http.get(f"{st['href']}/end").json()
    assert end["warnings"] == 1 and end["hints_used"] == 1  # the held double, once
    assert end["you"]["pr"] > 0  # the wrong double, in a quick 0-ply analysis


def test_your_openings_row_of_the_book(platform: Platform) -> None:
    """The opening book's "you" row (issue 30): a player's most frequent play with each roll they opened with,
    from their games against the bots; the book's loss as the gap where the book holds the play."""
    http = platform.http
    player = http.post("/v1/players", json={"name": "Opener"}).json()
    opened: dict[str, dict[str, int]] = {}
    rng = random.Random(100)

    def quick(body: dict[str, Any]) -> tuple[str, str] | None:
        """A 1-point game: the opening roll, a play of it where the player won it, then a resignation;
        the roll and the play the player opened with, if any."""
        st = new_game(http, body)
        st = http.post(f"{st['href']}/actions", json={"action": "roll"}).json()
        made = None
        if st["to_act"] == 0 and "play" in st["actions"] and st["legal_plays"][0]["notation"]:
            play = rng.choice(st["legal_plays"])["notation"]
            made = ("".join(str(d) for d in sorted(st["dice"], reverse=True)), play)
            st = http.post(f"{st['href']}/actions", json={"action": "play", "notation": play}).json()
        while st["status"] == "playing":
            action = "resign" if "resign" in st["actions"] else st["actions"][0]
            st = http.post(f"{st['href']}/actions", json={"action": action}).json()
        return made

    for _ in range(8):
        made = quick({"match_length": 1, "bot": {"level": "easy"}, "player": player["id"]})
        if made is not None:
            opened.setdefault(made[0], {}).setdefault(made[1], 0)
            opened[made[0]][made[1]] += 1
    # a free game counts for nothing (its first roll is no opening roll either)
    quick({"start": {"position": "4HPwATDgc/ABMA"}, "player": player["id"], "match_length": 1})
    r = http.get(f"/v1/players/{player['id']}/openings", params={"rules": "international"})
    assert r.status_code == 200, r.text
    rows = {x["roll"]: x for x in r.json()["rows"]}
    assert len(rows) == 15 and all(x["best"]["play"] for x in rows.values())
    for roll, row in rows.items():
        mine = opened.get(roll, {})
        if not mine:
            assert row["you"] is None, roll
            continue
        you = row["you"]
        assert you["games"] == sum(mine.values()) and you["times"] == max(mine.values()), roll
        assert you["play"] in mine and 0 <= you["win_rate"] <= 1
        assert you["gap"] is None or you["gap"] >= -1e-9
        if you["in_book"]:
            assert you["gap_from"] == "book"
    assert any(x["you"] for x in rows.values()) == bool(opened)
    assert problem(http.get(f"/v1/players/{player['id']}/openings", params={"rules": "x"}), 422)
    other = httpx.Client(base_url=http.base_url, headers={"X-API-Key": OTHER}, timeout=30)
    assert other.get(f"/v1/players/{player['id']}/openings").status_code == 404
    other.close()


def test_resign_the_match_delete_an_unfinished_one_and_the_end_summary(platform: Platform) -> None:
    """Issue 44's end of a match: resigning the whole match is a loss (the bot gets what it still needs),
    recorded for the player; only an unfinished match of one's own key is deleted; the end summary."""
    http = platform.http
    pid = http.post("/v1/players", json={"name": "Forfeiter"}).json()["id"]
    st = new_game(http, {"match_length": 3, "player": pid, "bot": {"level": "easy"}})
    assert problem(http.get(f"{st['href']}/end"), 409)["errors"][0]["field"] == "game_id"
    other = httpx.Client(base_url=http.base_url, headers={"X-API-Key": OTHER}, timeout=30)
    assert other.post(f"{st['href']}/forfeit").status_code == 404
    assert other.delete(st["href"]).status_code == 404
    for _ in range(30):  # the opening roll, again after a tie (a tie is no one's roll: not in the summary)
        st = http.post(f"{st['href']}/actions", json={"action": "roll"}).json()
        if any(e["type"] == "opening" and e["details"]["winner"] is not None for e in st["events"]):
            break
    done = http.post(f"{st['href']}/forfeit")
    assert done.status_code == 200, done.text
    out = done.json()
    assert out["status"] == "finished"
    assert out["result"] == {"reason": "forfeit", "winner": 1, "score": [0, 3]}
    assert [e["type"] for e in out["events"]] == ["forfeit", "game_end", "finished"]
    assert problem(http.post(f"{st['href']}/forfeit"), 409)["errors"][0]["field"] == "game_id"
    assert problem(http.delete(st["href"]), 409)["errors"][0]["field"] == "game_id"  # the record stays
    end = http.get(f"{st['href']}/end").json()
    assert end["game"] == 1 and end["match_over"] and end["how"] == "forfeit" and end["winner"] == 1
    assert end["points"] == 3 and end["score"] == [0, 3] and end["result"]["reason"] == "forfeit"
    assert end["duration_s"] is not None and end["duration_s"] >= 0 and end["hints_used"] == 0
    rolls = end["you"]["rolls"] + end["bot"]["rolls"]
    assert rolls >= 1 and (end["you"]["average_roll"] or end["bot"]["average_roll"]) >= 3
    stats = http.get(f"/v1/players/{pid}/statistics").json()
    assert stats["matches_played"] == 1 and stats["matches_won"] == 0, stats
    # an unfinished match is deleted, once, with its events
    open_ = new_game(http, {"match_length": 1})
    assert http.delete(open_["href"]).status_code == 204
    assert http.get(open_["href"]).status_code == 404 and http.delete(open_["href"]).status_code == 404
    other.close()
