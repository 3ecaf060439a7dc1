"""Jobs through the deployed path: a platform as ``make run`` starts it, and a small client for its jobs.

:class:`LocalPlatform` runs ``deploy/local/run.py`` (what ``make run`` runs) in a temporary run directory,
on free ports the kernel picks (``--any-ports``: never the usual ones, which another platform starting at
the same moment may also see free), reads the gateway's address from the
lines it prints, and stops it with SIGINT (as Ctrl-C would).  :class:`Api` submits rollout and analysis
jobs to a gateway (this one or any other: ``--platform-url``) and waits for them; the time of a job is from
its submission to the first poll that sees it done (polls every 0.2 s).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LOCAL_KEY = "local-dev-key"


def free_ports(n: int) -> list[int]:
    """``n`` distinct TCP ports free on 127.0.0.1 now (another process may take one later)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [int(s.getsockname()[1]) for s in socks]
    finally:
        for s in socks:
            s.close()


def write_json(path: Path | None, res: dict[str, Any]) -> None:
    """A bench's figures as indented UTF-8 JSON at ``path`` (nothing when ``--json`` was not given)."""
    if path:
        path.write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n")


class LocalPlatform:
    """``deploy/local/run.py FLAGS`` until :meth:`stop`; ``url`` is its gateway."""

    def __init__(self, *flags: str, env: dict[str, str] | None = None, timeout: float = 300) -> None:
        self.run_dir = Path(tempfile.mkdtemp(prefix="pulvezar-bench-run-"))
        cmd = [
            sys.executable,
            str(ROOT / "deploy" / "local" / "run.py"),
            "--run-dir",
            str(self.run_dir),
            "--any-ports",  # never the usual ports: another platform may be starting beside this one
            *flags,
        ]
        self.proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env={**os.environ, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self.url = ""
        up = threading.Event()

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.append(line.rstrip())
                m = re.match(r"gateway\s+(http://\S+)", line)
                if m:
                    self.url = m.group(1).replace("localhost", "127.0.0.1")
                if line.startswith("pulvezar is up"):
                    up.set()
            up.set()

        threading.Thread(target=read, daemon=True).start()
        if not up.wait(timeout) or self.proc.poll() is not None or not self.url:
            self.stop()
            raise RuntimeError("the platform did not come up:\n" + "\n".join(self.lines[-30:]))

    def log(self, service: str) -> str:
        path = self.run_dir / "logs" / f"{service}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self, timeout: float = 60) -> int:
        """Ctrl-C (SIGINT to the supervisor); its exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        return int(self.proc.returncode)

    def __enter__(self) -> LocalPlatform:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


class Api:
    """The REST API of a running platform, with an API key."""

    def __init__(self, url: str, key: str = LOCAL_KEY) -> None:
        self.url = url.rstrip("/")
        self.key = key

    def call(self, method: str, path: str, body: Any = None, timeout: float = 60) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("X-API-Key", self.key)
        if data is not None:
            req.add_header("content-type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"{method} {path}: {e.code} {e.read().decode(errors='replace')}") from None

    def wait(self, href: str, timeout: float, every: float = 0.2) -> tuple[dict[str, Any], float]:
        """Poll a job until it is done; (its last status, seconds since this call)."""
        t0 = time.perf_counter()
        while True:
            status = self.call("GET", href)
            if status["state"] in ("done", "failed", "cancelled"):
                if status["state"] != "done":
                    raise RuntimeError(f"job {href} ended {status['state']}: {status.get('error')}")
                return status, time.perf_counter() - t0
            if time.perf_counter() - t0 > timeout:
                raise RuntimeError(f"job {href} not done after {timeout:.0f} s: {status}")
            time.sleep(every)

    def rollout(self, body: dict[str, Any], timeout: float = 3600) -> tuple[dict[str, Any], float]:
        """Submit a rollout job and wait for it: (final status, seconds from submission to done)."""
        t0 = time.perf_counter()
        job = self.call("POST", "/v1/rollouts", body)
        status, _ = self.wait(job["href"], timeout)
        return status, time.perf_counter() - t0

    def analysis(self, body: dict[str, Any], timeout: float = 3600) -> tuple[dict[str, Any], float]:
        t0 = time.perf_counter()
        job = self.call("POST", "/v1/analyses", body)
        status, _ = self.wait(job["href"], timeout)
        return status, time.perf_counter() - t0
