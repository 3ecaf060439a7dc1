"""Small helpers shared by the tests that start real processes: free ports and polling."""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: called when a wait times out, before it fails; each returns what it can tell about the processes waited
#: for (rollout_workers: every live worker's thread stacks), printed to stderr (the failure's captured output)
ON_TIMEOUT: list[Callable[[], str]] = []


def explain_timeout() -> None:
    for explain in ON_TIMEOUT:
        try:
            text = explain()
        except Exception as e:  # an explanation never hides the failure itself
            text = f"({explain.__qualname__} failed: {e!r})"
        if text:
            print(text, file=sys.stderr)


def wait_until(cond: Callable[[], Any], timeout: float, what: str, every: float = 0.05) -> Any:
    """Poll ``cond`` until it returns something truthy; fail after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = cond()
        if value:
            return value
        time.sleep(every)
    explain_timeout()
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def log_entry(line: str) -> dict[str, Any]:
    """A service's JSON log line as a dict; a line that is not JSON is kept as ``{"msg": "(not JSON)"}``."""
    try:
        entry = json.loads(line)
    except json.JSONDecodeError:
        return {"msg": "(not JSON)", "line": line.rstrip()}
    return entry if isinstance(entry, dict) else {"msg": "(not JSON)", "line": line.rstrip()}


@contextlib.contextmanager
def torch_threads(n: int = 1) -> Iterator[None]:
    """Torch with the workers' thread count (a float32 matmul's last bit depends on it)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def run_coroutine(coro: Any) -> Any:
    """``asyncio.run(coro)`` in a thread of its own: a session fixture may keep an event loop running in
    this thread (Playwright's sync API does, in the xdist worker that ran a browser test first), where
    ``asyncio.run`` refuses to start."""
    import asyncio
    import threading

    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = asyncio.run(coro)
        except BaseException as e:  # re-raised in the caller's thread
            out["error"] = e

    t = threading.Thread(target=run, name="run-coroutine")
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out.get("value")
