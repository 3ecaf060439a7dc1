"""Backups of the durable store and their restore (``python -m services.store backup|restore``).

PostgreSQL: ``pg_dump -Fc`` (a compressed archive of the whole database, the schema with its Alembic revision
included) and ``pg_restore --clean --if-exists --single-transaction``: the tables in the archive are dropped
and recreated in one transaction, so a restore that fails leaves the database as it was. The client binaries
come from the PATH or, on Debian, the newest ``/usr/lib/postgresql/<version>/bin``; ``pg_dump`` must not be
older than the server. The password, when the URL has one, goes to them as ``PGPASSWORD``, not on the
command line.

SQLite (``make run``): the sqlite3 online backup API copies a consistent snapshot while the services run.
A restore copies the backup back through the same API, and only while no process has the database open: it
takes the database's exclusive lock first (after recovering a WAL left by a killed process) and refuses with
:class:`BackupError` when another connection holds it (stop ``make run`` first).
"""

from __future__ import annotations

import glob
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import make_url
from sqlalchemy.engine import URL


class BackupError(Exception):
    """A backup or restore could not be made; the message says why."""


# ------------------------------------------------------------------------------------------ PostgreSQL


def pg_binary(name: str) -> Path:
    """``pg_dump``/``pg_restore``/... from the PATH, else Debian's newest ``/usr/lib/postgresql/*/bin``."""
    found = shutil.which(name)
    if found:
        return Path(found)
    versions = sorted(
        glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
        key=lambda p: [int(x) if x.isdigit() else 0 for x in p.split("/")[4].split(".")],
    )
    if not versions:
        raise BackupError(f"{name} not found (the PostgreSQL client: apt-get install postgresql-client)")
    return Path(versions[-1])


def libpq(url: URL) -> tuple[str, dict[str, str]]:
    """A libpq connection URI for ``url`` without its password, and the environment that carries it."""
    env = dict(os.environ)
    if url.password is not None:
        env["PGPASSWORD"] = str(url.password)
    plain = url.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), env


def _run(cmd: list[str], env: dict[str, str], what: str) -> None:
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise BackupError(f"{what} failed (exit {done.returncode}): {done.stderr.strip()}")


def pg_backup(url: URL, out: Path) -> None:
    dsn, env = libpq(url)
    tmp = out.with_name(out.name + ".part")
    try:
        _run([str(pg_binary("pg_dump")), "-Fc", "--no-owner", "-f", str(tmp), "-d", dsn], env, "pg_dump")
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)


def pg_restore(url: URL, inp: Path) -> None:
    dsn, env = libpq(url)
    cmd = [str(pg_binary("pg_restore")), "--clean", "--if-exists", "--no-owner", "--single-transaction"]
    _run([*cmd, "--exit-on-error", "-d", dsn, str(inp)], env, "pg_restore")


# ---------------------------------------------------------------------------------------------- SQLite


def sqlite_path(url: URL) -> Path:
    if not url.database or url.database == ":memory:" or url.database.startswith("file:"):
        raise BackupError(f"not an SQLite database file: {url.database!r}")
    return Path(url.database)


def sqlite_backup(path: Path, out: Path) -> None:
    if not path.exists():
        raise BackupError(f"no database at {path}")
    tmp = out.with_name(out.name + ".part")
    tmp.unlink(missing_ok=True)
    src = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        dst = sqlite3.connect(tmp)
        try:
            src.backup(dst)  # one step: a consistent snapshot, writers wait at most for its copy
        finally:
            dst.close()
        tmp.replace(out)
    finally:
        src.close()
        tmp.unlink(missing_ok=True)


def _is_store(path: Path) -> str:
    """The Alembic revision of an SQLite file; BackupError when it is not a store's backup."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            if con.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise BackupError(f"{path} is damaged (PRAGMA quick_check)")
            row = con.execute("SELECT version_num FROM alembic_version").fetchone()
        finally:
            con.close()
    except sqlite3.DatabaseError as e:
        raise BackupError(f"{path} is not a backup of the store: {e}") from None
    if row is None:
        raise BackupError(f"{path} is not a backup of the store (no Alembic revision)")
    return str(row[0])


def sqlite_restore(path: Path, inp: Path) -> None:
    _is_store(inp)
    path.parent.mkdir(parents=True, exist_ok=True)
    dst = sqlite3.connect(path, timeout=0.5, isolation_level=None)
    try:
        try:
            dst.execute("SELECT count(*) FROM sqlite_master").fetchone()  # recovers a WAL left behind
            # leaving WAL mode needs the only connection; then hold the exclusive lock until closed
            if dst.execute("PRAGMA journal_mode=DELETE").fetchone()[0] != "delete":
                raise sqlite3.OperationalError("database is locked")
            dst.execute("PRAGMA locking_mode=EXCLUSIVE")
            dst.execute("BEGIN EXCLUSIVE")
            dst.execute("COMMIT")
        except sqlite3.OperationalError as e:
            raise BackupError(
                f"{path} is in use by another process ({e}): stop the services that use it, then restore"
            ) from None
        src = sqlite3.connect(f"file:{inp}?mode=ro", uri=True)
        try:
            src.backup(dst)
        finally:
            src.close()
        dst.execute("PRAGMA journal_mode=WAL")
    finally:
        dst.close()


# ---------------------------------------------------------------------------------------------- either


def _either(u: URL, what: str) -> tuple[Callable[[URL, Path], None], Callable[[URL, Path], None]]:
    """How to back up and restore the database at ``u``; BackupError naming ``what`` for any other kind."""
    backend = u.get_backend_name()
    if backend == "postgresql":
        return pg_backup, pg_restore
    if backend == "sqlite":
        return (
            lambda v, p: sqlite_backup(sqlite_path(v), p),
            lambda v, p: sqlite_restore(sqlite_path(v), p),
        )
    raise BackupError(f"no {what} for {backend} databases")


def backup(url: str, out: str | os.PathLike[str]) -> Path:
    """Write a backup of the database at ``url`` to ``out`` (replaced only when the backup is complete)."""
    u, dest = make_url(url), Path(out)
    dest.parent.mkdir(parents=True, exist_ok=True)
    _either(u, "backups")[0](u, dest)
    return dest


def restore(url: str, inp: str | os.PathLike[str]) -> None:
    """Replace the contents of the database at ``url`` by the backup ``inp``."""
    u, src = make_url(url), Path(inp)
    if not src.is_file():
        raise BackupError(f"no backup at {src}")
    _either(u, "restore")[1](u, src)
