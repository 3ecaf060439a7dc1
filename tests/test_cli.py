"""The ``pulvezar`` command line, run as a real process."""

import json
import subprocess
import sys


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pulvezar", *args], capture_output=True, text=True, timeout=60
    )


def test_show_draws_board_with_pips():
    r = run("show", "4HPwATDgc/ABMA")
    assert r.returncode == 0, r.stderr
    assert "pips 167" in r.stdout and "Position ID: 4HPwATDgc/ABMA" in r.stdout


def test_moves_json_lists_sixteen_plays_of_31():
    r = run("moves", "4HPwATDgc/ABMA", "--dice", "31", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["count"] == 16 and len(out["plays"]) == 16
    assert "8/5 6/5" in {p["notation"] for p in out["plays"]}


def test_moves_tavla_options_are_accepted():
    r = run(
        "moves", "4HPwATDgc/ABMA", "--dice", "64", "--rules", "tavla", "--hit-and-stop", "--must-bear-off"
    )
    assert r.returncode == 0, r.stderr
    assert "tavla+hit_and_stop+must_bear_off" in r.stdout


def test_bad_input_is_a_clear_error():
    r = run("moves", "not-an-id", "--dice", "31")
    assert r.returncode == 2 and "Position ID" in r.stderr and "Traceback" not in r.stderr
    r = run("moves", "4HPwATDgc/ABMA", "--dice", "71")
    assert r.returncode == 2 and "dice" in r.stderr
    r = run("moves", "4HPwATDgc/ABMA", "--dice", "31", "--hit-and-stop")
    assert r.returncode == 2 and "tavla" in r.stderr


def test_book_and_train_are_commands_and_the_old_module_commands_still_run():
    for args in (("book", "--help"), ("train", "--help"), ("train", "fit", "--help")):
        r = run(*args)
        assert r.returncode == 0, r.stderr
        assert r.stdout.startswith(f"usage: pulvezar {' '.join(args[:-1])} "), r.stdout
    r = run("train")  # self-play's own parser: --workdir is required
    assert r.returncode == 2 and "pulvezar train: error:" in r.stderr
    for module in ("pulvezar.book", "pulvezar.train"):  # deprecated, for one release
        r = subprocess.run(
            [sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=60
        )
        assert r.returncode == 0 and r.stdout.startswith(f"usage: pulvezar {module.split('.')[1]} "), r.stderr
