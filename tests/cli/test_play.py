"""``pulvezar play``: whole games from piped input, in process (a fixed dice seed) and against a gateway
served in this process (uvicorn in a thread, the Play API over SQLite, the shipped net as the bots'
evaluator).  The module's ``main`` is called, never the console script (it would set SIGPIPE)."""

from __future__ import annotations

import io
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pulvezar.cli import main
from pulvezar.cli.play import parse_command, tell
from pulvezar.formats import read_mat

SEED = "ab"  # in process: the opening is 4-1 for you, then 6-2 (see the transcript)


class Scripted(io.StringIO):
    """Standard input that answers what the game shows: the first listed play, roll, take, accept...

    ``lines`` come first; then it answers from the last ``possible:`` line of ``out``; after ``limit``
    answers (or with ``auto`` off, after ``lines``) it is at its end.
    """

    def __init__(
        self, out: io.StringIO, lines: list[str] | None = None, *, auto: bool = True, limit: int = 400
    ):
        super().__init__()
        self.out, self.lines, self.auto, self.left = out, list(lines or []), auto, limit

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        if self.lines:
            return self.lines.pop(0) + "\n"
        if not self.auto or self.left <= 0:
            return ""
        self.left -= 1
        tail = self.out.getvalue().rsplit("possible: ", 1)
        possible = [w.strip() for w in tail[-1].splitlines()[0].split(",")] if len(tail) == 2 else []
        if "a play" in possible:
            return "1\n"
        for word in ("roll", "take", "accept"):
            if word in possible:
                return word + "\n"
        return ""

    def isatty(self) -> bool:
        return False


def play(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], lines: list[str] | None = None, **kw: Any
) -> tuple[int, str]:
    out = io.StringIO()
    with monkeypatch.context() as mp:
        mp.setattr(sys, "stdout", out)
        mp.setattr(sys, "stdin", Scripted(out, lines, **kw))
        code = main(["play", *argv])
    return code, out.getvalue()


def test_a_one_point_match_in_process_to_the_end(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    mat = tmp_path / "game.mat"
    argv = ["--seed", SEED, "--level", "easy", "--export", str(mat)]
    code, out = play(monkeypatch, argv)
    assert code == 0
    assert "refused" not in out
    assert out.startswith("dice commitment (SHA-256 of the seed): ")
    assert "Opening roll: you 4, pulvezar 1: you start" in out
    assert "pulvezar rolls " in out and " and plays " in out
    assert "wins the match: you " in out
    assert f"dice seed {SEED.rjust(64, '0')}; commitment " in out and "every roll verifies" in out
    assert f"the match is saved in {mat} (mat)" in out
    record = read_mat(mat.read_text())
    assert record.length == 1 and record.players == ("You", "pulvezar") and len(record.games) == 1
    # the same seed, the same game
    again = play(monkeypatch, argv)[1]
    assert again == out


def test_the_rules_refusals_are_said_in_the_players_language(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same refusals as below with --lang tr: the library's reasons are translated too, not only the
    line around them (an illegal play and why, an action not possible now, a resignation level)."""
    lines = ["double", "roll", "42", "8/1", "resign backgammon", "roll 31"]
    code, out = play(monkeypatch, ["--seed", SEED, "--level", "easy", "--lang", "tr"], lines, auto=False)
    assert code == 0
    refusals = [line for line in out.splitlines() if line.startswith("reddedildi: ")]
    assert refusals == [
        "reddedildi: 'double' şimdi mümkün değil: yalnızca kendi sıranda, zar atmadan önce katlayabilirsin; "
        "mümkün olanlar: roll",
        "reddedildi: 1 ile 14 arasında bir hamle seç",
        "reddedildi: '8/1' burada 41 için geçerli bir hamle değil: 41 atışının hiçbir zarı (ne de "
        "toplamları) bir pulu 8 numaralı haneden 1 numaralı haneye götürmüyor",
        "reddedildi: burada backgammon olarak pes etmek mümkün değil; mümkün olanlar: single",
        "reddedildi: 'roll' şimdi mümkün değil: oyunun beklediği: 41 için senin hamlen; mümkün olanlar: "
        "play, resign",
    ]


def test_illegal_input_says_why_and_draws_the_board_again(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = ["double", "roll", "42", "8/1", "foo", "hint", "resign backgammon", "roll 31"]
    code, out = play(monkeypatch, ["--seed", SEED, "--level", "easy"], lines, auto=False)
    assert code == 0
    assert out.rstrip().endswith("the game is left unfinished (an in-process game is not saved)")
    refusals = [line for line in out.splitlines() if line.startswith("refused: ")]
    assert refusals == [
        "refused: 'double' is not possible now: you double only on your own turn, before rolling; "
        "possible: roll",
        "refused: choose a play from 1 to 14",
        # the rules engine's words: which die, which point
        "refused: '8/1' is not a legal play of 41 here: no die of 41 (nor their sum) moves a checker "
        "from the 8-point to the 1-point",
        "refused: unknown command 'foo' (type help)",
        "refused: no hints during a game; play with --trainer for a verdict on each decision",
        "refused: resigning a backgammon is not possible here; possible: single",
        "refused: 'roll' is not possible now: the game waits for your play of 41; possible: play, resign",
    ]
    # after every refusal the board again
    for chunk in out.split("refused: ")[1:]:
        assert chunk.splitlines()[1].startswith("Game 1 of a 1-point match")
    assert "Your 4-1: type a play or its number (14 legal)" in out


def test_commands() -> None:
    st: dict[str, Any] = {
        "status": "playing", "actions": ["play", "resign"],
        "legal_plays": [
            {"notation": "24/23 13/9", "position_id": "P1"}, {"notation": "13/8", "position_id": "P2"},
        ],
    }  # fmt: skip
    assert parse_command("2", st) == {"action": "play", "position_id": "P2"}
    assert parse_command("8/5 6/5", st) == {"action": "play", "notation": "8/5 6/5"}
    assert parse_command("play 13/8", st) == {"action": "play", "notation": "13/8"}
    assert parse_command("roll 3-1", st) == {"action": "roll", "dice": [3, 1]}
    assert parse_command("resign gammon", st) == {"action": "resign", "level": "gammon"}
    assert parse_command("drop", st) == {"action": "pass"}
    assert parse_command("  board ", st) == "board" and parse_command("quit", st) == "quit"
    assert tell(
        [
            {"type": "roll", "player": 1, "details": {"dice": [6, 4]}},
            {"type": "play", "player": 1, "details": {"notation": "24/18 13/9"}},
            {"type": "double", "player": 1, "details": {"cube": 2}},
            {"type": "take", "player": 0, "details": {"cube": 2, "owner": 0, "verdict": {
                "played": "take", "best": "pass", "loss": 0.046, "mark": "doubtful", "why": "gammons",
            }}},
        ]
    ) == [
        "pulvezar rolls 6-4 and plays 24/18 13/9",
        "pulvezar doubles to 2",
        "You take: the cube is at 2, on your side",
        "trainer: doubtful: pass was better than take by 0.046 — gammons",
    ]  # fmt: skip


def test_option_errors(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, words in [
        (["--resume", "g1"], "--resume needs --api"),
        (["--api", "http://127.0.0.1:9", "--seed", "1"], "--seed is for in-process games"),
        (["--hit-and-stop"], "need --tavla"),
        (["--seed", "xyz"], "--seed is up to 64 hex digits"),
        (["--tavla", "--length", "0"], "money"),
    ]:
        assert main(["play", *argv]) == 2, argv
        assert words in capsys.readouterr().err, argv
    # a platform that is not there: one error line, exit 2
    assert main(["play", "--api", f"http://127.0.0.1:{_free_port()}"]) == 2
    assert "no answer from" in capsys.readouterr().err


# ---- against a gateway ---------------------------------------------------------------------------
KEY = "play-cli-key"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("fastapi")
    pytest.importorskip("sqlalchemy")
    uvicorn = pytest.importorskip("uvicorn")
    from pulvezar.eval.evaluator import default_evaluator
    from services.gateway.app import create_app
    from services.gateway.settings import GatewaySettings
    from services.store.db import upgrade

    url = f"sqlite:///{tmp_path_factory.mktemp('play') / 'pulvezar.db'}"
    upgrade(url)
    settings = GatewaySettings(
        api_keys={KEY: {"name": "play", "rate_per_s": 1000, "burst": 1000}},
        rules_address="127.0.0.1:9",
        evaluator_address="127.0.0.1:9",
        ready_timeout_s=0.2,
    )  # type: ignore[call-arg]
    app = create_app(settings)
    app.state.database_url = url
    app.state.game_evaluator = default_evaluator()
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the gateway did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


def _get(base: str, path: str) -> Any:
    import httpx

    r = httpx.get(base + path, headers={"X-API-Key": KEY}, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()


def test_against_the_api_saved_resumed_finished(
    gateway: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PULVEZAR_API_KEY", KEY)
    api = ["--api", gateway]
    code, out = play(
        monkeypatch, [*api, "--tavla", "--level", "easy"], ["double", "roll", "1", "roll"], auto=False
    )
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith("game g") and first.endswith(f" at {gateway}")
    game_id = first.split()[1]
    # the API's problem detail, and the game goes on
    assert "refused: 'double' is not possible now: Tavla is played without a cube" in out
    assert "Opening roll: you " in out
    assert out.rstrip().endswith(
        f"game saved as {game_id}; continue with: pulvezar play --api {gateway} --resume {game_id}"
    )
    listed = _get(gateway, "/v1/games")["games"]
    assert [g["id"] for g in listed] == [game_id] and listed[0]["status"] == "playing"
    assert listed[0]["rules"] == "tavla"
    # resumed (the key from the environment) and played to the end
    mat = tmp_path / "tavla.mat"
    code, out = play(monkeypatch, [*api, "--resume", game_id, "--export", str(mat)])
    assert code == 0 and "refused" not in out
    assert out.startswith(f"game {game_id} at {gateway}")
    # who wins depends on the API's dice (a random seed per game): "You win" or "<bot> wins"
    assert (" win the match: you " in out or " wins the match: you " in out) and "every roll verifies" in out
    state = _get(gateway, f"/v1/games/{game_id}")
    assert state["status"] == "finished" and f"dice seed {state['dice_seed']}; " in out
    assert read_mat(mat.read_text()).tags.get("Variation") == "Tavla"
    # a finished game resumed: the result again
    code, out = play(monkeypatch, [*api, "--resume", game_id, "--key", KEY])
    assert code == 0 and "every roll verifies" in out and "refused" not in out


def test_a_wrong_key_is_one_error_line(gateway: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--api", gateway, "--key", "not-a-key"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pulvezar: error: {gateway}: ") and len(err.splitlines()) == 1
