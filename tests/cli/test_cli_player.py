"""The CLI's player (issue 44): ``--player`` on ``pulvezar play`` and ``pulvezar match analyse``, its default
from the profile (``config.toml``, :mod:`pulvezar.cli.config`), and the seed's rule for which of a match's
players is you (names compare trimmed and without case, exactly one).  The games on a platform use
test_play's gateway (the Play API in this process)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_play import KEY, SEED, gateway, play  # noqa: F401 (gateway: the fixture)

from pulvezar.cli import main
from pulvezar.cli.config import config_path, default_player, player_of, side_of
from pulvezar.errors import PulvezarError
from pulvezar.formats import read_mat

MATCH = Path(__file__).resolve().parents[1] / "services" / "data" / "match1495872.txt"  # lasse v yuko


@pytest.fixture(autouse=True)
def profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty profile of this test (never the user's own ~/.config)."""
    path = tmp_path / "config.toml"
    monkeypatch.setenv("PULVEZAR_CONFIG", str(path))
    return path


def test_the_profile_file(profile: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert config_path() == profile and default_player() is None  # no file: no player
    profile.write_text('player = "  Ayşe "\ntheme = "dark"\n', encoding="utf-8")
    assert default_player() == "Ayşe"
    assert player_of(None) == ("Ayşe", False) and player_of(" Can ") == ("Can", True)
    profile.write_text("theme = 1\n")
    assert default_player() is None
    for text, field in (("player = [", "config"), ("player = 3", "player"), ('player = "  "', "player"),
                        (f'player = "{"x" * 101}"', "player")):  # fmt: skip
        profile.write_text(text)
        with pytest.raises(PulvezarError) as e:
            default_player()
        assert e.value.field == field and str(profile) in str(e.value)
    with pytest.raises(PulvezarError, match="--player"):
        player_of("")
    monkeypatch.delenv("PULVEZAR_CONFIG")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_path() == tmp_path / "xdg" / "pulvezar" / "config.toml"


def test_which_player_you_are() -> None:
    assert side_of(("lasse", "yuko"), "YUKO ") == 1
    assert side_of(("Lasse", "yuko"), "lasse") == 0
    assert side_of(("lasse", "yuko"), "lass") is None  # no prefixes
    assert side_of(("Can", "can"), "can") is None  # both: the name does not say


def analyse(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    code = main(["match", "analyse", str(MATCH), "--level", "0ply", "--quiet", *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_match_analyse_for_a_player(profile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = analyse(capsys, "--json", "--player", "Yuko")
    assert code == 0 and json.loads(out)["you"] == {"name": "yuko", "side": 1}
    code, out, _ = analyse(capsys)  # no player: nobody marked
    assert code == 0 and "(you)" not in out and '"you"' not in out
    profile.write_text('player = "lasse"\n')
    code, out, _ = analyse(capsys)
    head = out.splitlines()[1]
    assert code == 0 and "lasse (you)" in head and "yuko (you)" not in head
    # an explicit name that is neither player: an error naming the file's players
    code, out, err = analyse(capsys, "--player", "Ayşe")
    assert code == 2 and out == ""
    assert err.startswith("pulvezar: error: --player: 'Ayşe' is not one player of ") and "lasse, yuko" in err
    # the profile's name that is neither player (someone else's match): a note, the analysis for neither
    profile.write_text('player = "Ayşe"\n')
    code, out, err = analyse(capsys, "--json")
    assert code == 0 and "you" not in json.loads(out)
    assert err.startswith("pulvezar: note: the profile's player 'Ayşe' is not one player of ")


def test_play_in_process_names_you_in_the_export(
    profile: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    mat = tmp_path / "game.mat"
    argv = ["--seed", SEED, "--level", "easy", "--export", str(mat)]
    assert play(monkeypatch, [*argv, "--player", "Ayşe"])[0] == 0
    assert read_mat(mat.read_text()).players == ("Ayşe", "pulvezar")
    profile.write_text('player = "Can"\n')
    assert play(monkeypatch, argv)[0] == 0
    record = read_mat(mat.read_text())
    assert record.players == ("Can", "pulvezar")
    assert side_of(record.players, "can") == 0  # an import of the file finds the player again


def _get(base: str, path: str) -> Any:
    import httpx

    r = httpx.get(base + path, headers={"X-API-Key": KEY}, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()


def test_play_on_a_platform_records_the_game_for_the_player(
    gateway: str,  # noqa: F811 (test_play's fixture)
    profile: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PULVEZAR_API_KEY", KEY)
    before = {p["id"] for p in _get(gateway, "/v1/players?limit=200")["players"]}
    code, out = play(monkeypatch, ["--api", gateway, "--level", "easy", "--player", "Deniz 44"], ["roll"],
                     auto=False)  # fmt: skip
    assert code == 0
    made = [p for p in _get(gateway, "/v1/players?limit=200")["players"] if p["id"] not in before]
    assert [p["name"] for p in made] == ["Deniz 44"]  # made, as the key had no such player
    first = _get(gateway, f"/v1/games/{out.split()[1]}")
    assert first["player"] == made[0]["id"]
    # the profile's name, in another case: the same player, not a second one
    profile.write_text('player = "deniz 44"\n')
    code, out = play(monkeypatch, ["--api", gateway, "--level", "easy"], ["roll"], auto=False)
    assert code == 0
    assert _get(gateway, f"/v1/games/{out.split()[1]}")["player"] == made[0]["id"]
    assert len(_get(gateway, "/v1/players?limit=200")["players"]) == len(before) + 1
    # a resumed game keeps its player; --player does not move it
    code, out = play(monkeypatch, ["--api", gateway, "--resume", first["id"], "--player", "Other"], ["quit"],
                     auto=False)  # fmt: skip
    assert code == 0 and _get(gateway, f"/v1/games/{first['id']}")["player"] == made[0]["id"]
