"""Migrations for operators: a reachability check, an upgrade that several processes may start at once, the
newest revision, and waiting until a database is at it (``python -m services.store``; docs/store.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, make_url, pool, text

from services.store import db

#: the key of the PostgreSQL advisory lock held while migrating ("pulvezar" in ASCII, as an int64)
LOCK_KEY = 0x70756C76657A6172


class Unreachable(Exception):
    """The database at the URL cannot be reached (or the URL is not one SQLAlchemy knows)."""


def shown(url: str) -> str:
    """The URL without its password, for messages."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "(an invalid URL)"


def sqlite_file(url: str) -> Path | None:
    """The file of an SQLite URL (None: another database; :class:`Unreachable`: not a URL)."""
    try:
        u = make_url(url)
    except Exception as e:
        raise Unreachable(f"{shown(url)}: {e}") from None
    if u.get_backend_name() != "sqlite" or not u.database or u.database == ":memory:":
        return None
    return Path(u.database)


def _engine(url: str, connect_timeout_s: float) -> Any:
    args: dict[str, Any] = {}
    if url.startswith("postgresql"):
        args["connect_timeout"] = max(1, round(connect_timeout_s))
    try:
        return create_engine(url, poolclass=pool.NullPool, connect_args=args)
    except Exception as e:  # ArgumentError, NoSuchModuleError: not a URL SQLAlchemy can use
        raise Unreachable(f"{shown(url)}: {e}") from None


def check(url: str, connect_timeout_s: float = 5.0) -> None:
    """Connect once; :class:`Unreachable` with the reason when that fails."""
    eng = _engine(url, connect_timeout_s)
    try:
        with eng.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as e:
        reason = getattr(e, "orig", None) or e
        raise Unreachable(f"cannot reach the database at {shown(url)}: {str(reason).strip()}") from None
    finally:
        eng.dispose()


def wait_reachable(
    url: str, timeout_s: float, every_s: float = 2.0, say: Callable[[str], None] = print
) -> None:
    """:func:`check` until it succeeds or ``timeout_s`` has passed (then :class:`Unreachable`)."""
    end = time.monotonic() + timeout_s
    last = ""
    while True:
        try:
            check(url)
            return
        except Unreachable as e:
            if time.monotonic() >= end:
                raise
            if str(e) != last:
                say(f"{e}; retrying for up to {max(0.0, end - time.monotonic()):.0f} s")
                last = str(e)
        time.sleep(every_s)


def head() -> str:
    """The newest revision of the migrations shipped with this code."""
    from alembic.script import ScriptDirectory

    rev = ScriptDirectory.from_config(db.alembic_config("sqlite://")).get_current_head()
    assert rev is not None
    return rev


def known(revision: str) -> bool:
    """Whether ``revision`` is one of this code's migrations."""
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    try:
        return ScriptDirectory.from_config(db.alembic_config("sqlite://")).get_revision(revision) is not None
    except CommandError:
        return False


def current(url: str) -> str | None:
    """The revision the database is at (None: not migrated), on a connection of its own."""
    from alembic.runtime.migration import MigrationContext

    eng = _engine(url, 5.0)
    try:
        with eng.connect() as conn:
            rev: str | None = MigrationContext.configure(conn).get_current_revision()
            return rev
    finally:
        eng.dispose()


def upgrade(url: str, revision: str = "head") -> None:
    """:func:`services.store.db.upgrade`, serialised on PostgreSQL by an advisory lock: processes that start
    it together (one per pod) take turns, and all but the first find the database already migrated."""
    if make_url(url).get_backend_name() != "postgresql":
        db.upgrade(url, revision)
        return
    if revision == "head" and current(url) == head():
        return  # the usual case of a pod's start: no lock to wait for
    eng = _engine(url, 5.0)
    try:
        with eng.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": LOCK_KEY})
            try:
                db.upgrade(url, revision)
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": LOCK_KEY})
    finally:
        eng.dispose()


def wait_for_head(
    url: str,
    timeout_s: float,
    every_s: float = 2.0,
    say: Callable[[str], None] = print,
) -> str:
    """Poll until the database is at this code's head revision (or at one newer than this code knows,
    as during a rollback of the image); the revision, or TimeoutError."""
    want = head()
    end = time.monotonic() + timeout_s
    last = ""
    while True:
        try:
            rev = current(url)
            state = f"at {rev or 'no revision'}, waiting for {want}"
            if rev == want:
                return rev
            if rev is not None and not known(rev):
                say(f"{shown(url)} is at {rev}, newer than this code's head {want}: going on")
                return rev
        except Exception as e:
            reason = getattr(e, "orig", None) or e
            state = f"not reachable ({str(reason).strip().splitlines()[0] if str(reason).strip() else e!r})"
        if state != last:
            say(f"{shown(url)}: {state}")
            last = state
        if time.monotonic() >= end:
            raise TimeoutError(f"{shown(url)} did not reach revision {want} within {timeout_s:g} s ({state})")
        time.sleep(every_s)
