"""``python -m services.store`` as an operator runs it: upgrade, current, backup and restore on SQLite and
PostgreSQL, upgrades started together, and the errors (exit 2): no URL, an unreachable database."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from procutil import free_port

from services.store import migrate
from services.store.__main__ import main
from services.store.db import engine
from services.store.jobs import JobRecords

ROOT = Path(__file__).resolve().parents[2]


def store(*args: str, url: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PULVEZAR_DATABASE_URL"}
    if url is not None:
        env["PULVEZAR_DATABASE_URL"] = url
    return subprocess.run(
        [sys.executable, "-m", "services.store", *args], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip


def cli(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``python -m services.store`` in this process: the status, stdout and stderr."""
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_backup_and_restore_round_trip(
    empty_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("upgrade", "--url", empty_url, capsys=capsys)[0] == 0
    assert cli("current", "--url", empty_url, capsys=capsys)[1].strip() == f"{migrate.head()} (head)"

    jobs = JobRecords(empty_url)
    jobs.create("a", "analysis", {"m": 1}, owner="k1", blobs={"upload": b"\x00match"})
    jobs.add_chunks("a", {0: {"r": 0}, 1: {"r": 1}})
    jobs.set_state("a", "done")
    first = (jobs.get("a"), jobs.chunks("a"), jobs.blob("a", "upload"))

    dump = tmp_path / "backups" / "store.dump"
    done = store("backup", str(dump), url=empty_url)  # while this process holds its connections
    assert done.returncode == 0, done.stderr
    assert dump.stat().st_size > 0 and not list(dump.parent.glob("*.part"))

    # the database changes after the backup
    jobs.delete("a")
    jobs.create("b", "rollout", {}, owner="k1")
    jobs.add_chunks("b", {0: {"r": 9}})
    assert [j.id for j in jobs.list("k1")[0]] == ["b"]

    if empty_url.startswith("sqlite"):
        # an SQLite file is restored only while no process has it open
        busy = store("restore", str(dump), url=empty_url)
        assert busy.returncode == 2 and "in use" in busy.stderr
        assert [j.id for j in jobs.list("k1")[0]] == ["b"]  # untouched
    engine(empty_url).dispose()  # the services are stopped for a restore
    done = store("restore", str(dump), url=empty_url)
    assert done.returncode == 0, done.stderr

    assert (jobs.get("a"), jobs.chunks("a"), jobs.blob("a", "upload")) == first
    assert jobs.get("b") is None and jobs.chunks("b") == {} and jobs.count() == 1
    assert migrate.current(empty_url) == migrate.head()
    # and it works on as before
    jobs.create("c", "rollout", {}, owner="k1")
    assert [j.id for j in jobs.list("k1")[0]] == ["c", "a"]


def test_restore_refuses_what_is_not_a_backup(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("upgrade", "--url", sqlite_url, capsys=capsys)[0] == 0
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database" * 100)
    status, _, err = cli("restore", str(junk), "--url", sqlite_url, capsys=capsys)
    assert status == 2 and "not a backup" in err
    status, _, err = cli("restore", str(tmp_path / "missing.db"), "--url", sqlite_url, capsys=capsys)
    assert status == 2 and "no backup" in err


def test_upgrades_started_together_take_turns(pg_url: str) -> None:
    """One per pod (k8s init containers): PostgreSQL's advisory lock lets one migrate, the others find the
    database at head; without it one of three such upgrades often fails on a duplicate table."""
    env = {**os.environ, "PULVEZAR_DATABASE_URL": pg_url}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "services.store", "upgrade"],
            cwd=ROOT,
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outs = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outs
    assert migrate.current(pg_url) == migrate.head()
    assert migrate.wait_for_head(pg_url, timeout_s=5) == migrate.head()


def test_no_url_exits_2() -> None:
    done = store("current")
    assert done.returncode == 2 and "PULVEZAR_DATABASE_URL" in done.stderr


def test_errors_exit_2(sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    down = f"postgresql+psycopg://someone:secret@127.0.0.1:{free_port()}/pulvezar"
    for args in (("upgrade",), ("current",), ("backup", str(tmp_path / "x.dump")), ("restore", __file__)):
        status, _, err = cli(*args, "--url", down, capsys=capsys)
        assert status == 2 and "cannot reach the database" in err, err
        assert "secret" not in err
    assert not (tmp_path / "x.dump").exists()
    t0 = time.monotonic()  # an init container's upgrade waits for the database, then gives up
    status, _, err = cli("upgrade", "--wait", "1", "--url", down, capsys=capsys)
    assert status == 2 and time.monotonic() - t0 >= 1 and "retrying" in err and "secret" not in err
    status, _, err = cli("--url", "no-such-url", "current", capsys=capsys)
    assert status == 2 and "invalid URL" in err
    status, _, err = cli("backup", str(tmp_path / "x.db"), "--url", sqlite_url, capsys=capsys)
    assert status == 2 and "no database" in err  # no database file yet
    # --wait-head gives up after its timeout (exit 1): a database at 0001 is not at head
    assert cli("upgrade", "--revision", "0001", "--url", sqlite_url, capsys=capsys)[0] == 0
    status, _, err = cli("current", "--wait-head", "--timeout", "0.5", "--url", sqlite_url, capsys=capsys)
    assert status == 1 and "did not reach revision" in err


@pytest.mark.parametrize("args", [["--help"], ["backup", "--help"]])
def test_help(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(args)
    assert exit_.value.code == 0 and "usage: python -m services.store" in capsys.readouterr().out
