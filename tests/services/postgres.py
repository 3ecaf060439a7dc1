"""A real PostgreSQL server for the tests: ``initdb`` in a temporary directory, ``postgres`` on a free port.

Debian's ``postgresql`` package provides the binaries (``make test`` installs it when missing); they live
in ``/usr/lib/postgresql/<version>/bin``.  PostgreSQL refuses to run as root, so under root (CI) the server
runs as the ``postgres`` user the package creates.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from procutil import free_port


def bindir() -> Path | None:
    """The directory of ``initdb`` and ``postgres`` (newest version), or None."""
    found = shutil.which("initdb") or shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(versions[-1]).parent if versions else None


class Postgres:
    """One server; :meth:`stop` and :meth:`start` may be called again (the data directory stays)."""

    def __init__(self, user: str = "pulvezar", database: str = "pulvezar") -> None:
        bins = bindir()
        if bins is None:
            raise RuntimeError("PostgreSQL is not installed (Debian: apt-get install postgresql)")
        self.bins = bins
        self.root = Path(tempfile.mkdtemp(prefix="pulvezar-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.user, self.database = user, database
        self._as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self._as:
            shutil.chown(self.root, "postgres", "postgres")
        self._run(["initdb", "-D", str(self.data), "-U", user, "-A", "trust", "--no-sync", "-E", "UTF8"])
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()
        self._run(["createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", user, database])

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://{self.user}@127.0.0.1:{self.port}/{self.database}"

    def _run(self, cmd: list[str]) -> None:
        subprocess.run([*self._as, str(self.bins / cmd[0]), *cmd[1:]], check=True, capture_output=True)

    def start(self, timeout: float = 30) -> None:
        options = [
            "-c",
            "fsync=off",
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            f"unix_socket_directories={self.root}",
        ]
        self.proc = subprocess.Popen(
            [*self._as, str(self.bins / "postgres"), "-D", str(self.data), "-p", str(self.port), *options],
            stdout=subprocess.DEVNULL,
            stderr=open(self.root / "server.log", "ab"),  # noqa: SIM115 (the child keeps it)
            start_new_session=True,
        )
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            ready = subprocess.run(
                [str(self.bins / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)], capture_output=True
            )
            if ready.returncode == 0:
                return
            if self.proc.poll() is not None:
                raise RuntimeError((self.root / "server.log").read_text(errors="replace")[-2000:])
            time.sleep(0.1)
        raise RuntimeError(f"PostgreSQL did not start within {timeout} s")

    def stop(self) -> None:
        """Fast shutdown (SIGINT): connections are cut, as when the database goes away."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, 2)
            self.proc.wait(30)
        self.proc = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
