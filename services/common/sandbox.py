"""Read untrusted files in child processes with CPU, memory and wall-clock limits.

A parser bug (a backtracking pattern, an archive that inflates without end) must not stall or exhaust
the process that serves the API.  :class:`ParsePool` keeps a few parser processes (forked from a
forkserver, reused across calls); each call runs ``"module:function"`` there with ``RLIMIT_CPU`` set to
the CPU seconds it may spend, under an ``RLIMIT_AS`` set at the process's start, and a wall-clock
deadline after which the parent kills it (counted once the process has said it is ready: a new process's
start-up has its own bound, :data:`STARTUP_S`).  A process that hits a limit is replaced; the call raises
:class:`ParseTooSlow` or :class:`ParseTooLarge`.  At most ``queue`` calls run or wait at once; one more
raises :class:`ParseBusy` at once (the gateway answers 503 with ``Retry-After``).

The target's own errors come back as :class:`ParseRejected` (``field``, ``message``); its result must
pickle.  The gateway enters :func:`isolated` around the work of a request, so that code far below it
(:func:`services.jobs.analysis_files.read_match`) parses through the pool with :func:`run`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import dataclasses
import importlib
import math
import os
import queue
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from typing import Any

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

TOO_SLOW = "the file took too long to read"
TOO_LARGE = "the file is too large when read"
CRASHED = "the file could not be read (the reader stopped)"
BUSY = "too many files are being read; try again shortly"
#: seconds a new parser process may take to start and say it is ready; its start is not the parse's time (a
#: loaded machine can take seconds to start Python, which a 2-s parse limit must not count)
STARTUP_S = 60.0


class ParseSettings(BaseSettings):
    """Limits of the gateway's parser processes, from ``PULVEZAR_GATEWAY_PARSE_<NAME>``."""

    model_config = SettingsConfigDict(env_prefix="PULVEZAR_GATEWAY_PARSE_")

    workers: int = Field(2, ge=1, le=64, description="parser processes")
    queue: int = Field(8, ge=1, description="parses running or waiting at once; more: 503 + Retry-After")
    cpu_s: float = Field(10.0, gt=0, description="CPU seconds of one parse")
    timeout_s: float = Field(20.0, gt=0, description="wall-clock seconds of one parse (and of its wait)")
    memory_mb: int = Field(
        512, ge=16, description="address space a parser process may add to what it starts with (MiB)"
    )
    warm: bool = Field(
        False, description="start the parser processes with the gateway (else at the first upload, ~2 s)"
    )


class ParseFailed(Exception):
    """A parse that gave no result; ``reason`` says why, for the client."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ParseTooSlow(ParseFailed):
    """The parse ran out of CPU time or wall-clock time."""


class ParseTooLarge(ParseFailed):
    """The parse ran out of memory."""


class ParseBusy(ParseFailed):
    """Too many parses at once: try again shortly."""


class ParseRejected(ParseFailed):
    """The target raised: the file is bad (``field``: the target's field, if it named one)."""

    def __init__(self, field: str | None, message: str) -> None:
        super().__init__(message)
        self.field = field


# ---- the parser process ------------------------------------------------------------------------------
#: the reasons a read fails, as counted by :attr:`ParsePool.failures` (anything else: ``crashed``)
FAILURES: tuple[tuple[type[ParseFailed], str], ...] = (
    (ParseTooSlow, "too_slow"),
    (ParseTooLarge, "too_large"),
    (ParseBusy, "busy"),
    (ParseRejected, "rejected"),
)
FAILURE_REASONS = (*(name for _, name in FAILURES), "crashed")


def _vm_bytes() -> int:
    """This process's address space now (Linux ``/proc/self/statm``; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _serve(conn: Any, memory_bytes: int, cpu_s: float) -> None:
    """A parser process: run each ``(target, args)`` it is sent, answer ``("ok", result)``,
    ``("memory",)`` or ``("raised", field, message)``; exit when the parent's end closes."""
    # under memory pressure the kernel kills a parser, not the API
    with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as f:
        f.write("1000")
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXCPU dumps core by default: no core files
    if memory_bytes:
        limit = _vm_bytes() + memory_bytes
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    functions: dict[str, Callable[..., Any]] = {}
    conn.send(("ready",))
    while True:
        try:
            target, args = conn.recv()
        except (EOFError, OSError):
            return
        # SIGXCPU (default action: terminate) once this call has spent cpu_s more CPU seconds
        soft = math.ceil(_cpu_s() + cpu_s)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.RLIM_INFINITY))
        try:
            if target not in functions:
                module, _, name = target.partition(":")
                functions[target] = getattr(importlib.import_module(module), name)
            reply: tuple[Any, ...] = ("ok", functions[target](*args))
        except MemoryError:
            reply = ("memory",)
        except Exception as e:
            reply = ("raised", getattr(e, "field", None), str(getattr(e, "message", None) or e))
        try:
            conn.send(reply)
        except MemoryError:
            conn.send(("memory",))
        except Exception as e:  # a result that does not pickle: the target's bug, told as the file's
            conn.send(("raised", None, f"the file's contents could not be returned ({type(e).__name__})"))
        if reply[0] == "memory":
            return  # a process that ran out of memory is not trusted with the next file


class _Duplex:
    """Two one-way connections as one (pipes of a subprocess)."""

    def __init__(self, reader: Connection, writer: Connection) -> None:
        self.reader, self.writer = reader, writer

    def send(self, obj: Any) -> None:
        self.writer.send(obj)

    def recv(self) -> Any:
        return self.reader.recv()

    def poll(self, timeout: float) -> bool:
        return self.reader.poll(timeout)

    def close(self) -> None:
        for c in (self.reader, self.writer):
            with contextlib.suppress(Exception):
                c.close()


class _Worker:
    """One parser process (``python -m services.common.sandbox``, this process's ``sys.path``) and the
    parent's ends of its pipes."""

    def __init__(self, settings: ParseSettings) -> None:
        child_reads, parent_writes = os.pipe()
        parent_reads, child_writes = os.pipe()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        memory = settings.memory_mb * 1024 * 1024
        try:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    __name__,
                    *map(str, (child_reads, child_writes, memory, settings.cpu_s)),
                ],
                pass_fds=(child_reads, child_writes),
                env=env,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # a Ctrl-C or SIGTERM to the gateway's group is the gateway's
            )
        except BaseException:
            os.close(parent_reads)
            os.close(parent_writes)
            raise
        finally:
            os.close(child_reads)
            os.close(child_writes)
        self.conn = _Duplex(
            Connection(parent_reads, writable=False), Connection(parent_writes, readable=False)
        )
        self.ready = False

    def _wait_ready(self) -> None:
        """The process's first word, ``("ready",)``, within :data:`STARTUP_S` (else it is broken)."""
        try:
            if self.conn.poll(STARTUP_S) and self.conn.recv() == ("ready",):
                self.ready = True
                return
        except (EOFError, OSError):
            pass
        raise ParseFailed(CRASHED)

    def call(self, target: str, args: tuple[Any, ...], timeout_s: float) -> Any:
        """The target's result; :class:`ParseFailed` (the process is then dead or to be killed). The
        wall clock of ``timeout_s`` starts once the process is ready."""
        if not self.ready:
            self._wait_ready()
        self.conn.send((target, args))
        if not self.conn.poll(timeout_s):
            raise ParseTooSlow(TOO_SLOW)
        try:
            reply = self.conn.recv()
        except (EOFError, OSError):
            try:
                code = self.proc.wait(5)
            except subprocess.TimeoutExpired:
                code = None
            if code in (-signal.SIGXCPU, -signal.SIGKILL):
                raise ParseTooSlow(TOO_SLOW) from None
            if code in (-signal.SIGSEGV, -signal.SIGABRT):  # C code that found no memory
                raise ParseTooLarge(TOO_LARGE) from None
            raise ParseFailed(CRASHED) from None
        if reply[0] == "ok":
            return reply[1]
        if reply[0] == "memory":
            raise ParseTooLarge(TOO_LARGE)
        raise ParseRejected(reply[1], reply[2])

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.proc.kill()
            self.proc.wait(5)
        self.conn.close()


class ParsePool:
    """At most ``settings.workers`` parser processes, started when first needed and replaced when one
    fails; thread-safe (:meth:`run` blocks: call it from a thread in async code)."""

    def __init__(self, settings: ParseSettings | None = None) -> None:
        self.settings = settings or ParseSettings()
        self._idle: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        self._slots = threading.BoundedSemaphore(self.settings.queue)
        self._waiters = ThreadPoolExecutor(self.settings.queue, thread_name_prefix="parse-wait")
        self._lock = threading.Lock()
        self._started = 0
        self.killed = 0  # processes replaced after a limit (metrics, tests)
        self.failures: collections.Counter[str] = collections.Counter()  # by FAILURES' reason (metrics)

    def _take(self, deadline: float) -> _Worker:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            start = self._started < self.settings.workers
            if start:
                self._started += 1
        if start:
            try:
                return _Worker(self.settings)
            except BaseException as e:
                with self._lock:
                    self._started -= 1
                if isinstance(e, OSError):  # no process to be had now (fork failed, too many files)
                    raise ParseBusy(BUSY) from e
                raise
        try:
            return self._idle.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise ParseBusy(BUSY) from None

    def warm(self) -> int:
        """Start the processes not started yet (blocks: call it from a thread); how many it started."""
        started = 0
        while True:
            with self._lock:
                if self._started >= self.settings.workers:
                    return started
                self._started += 1
            try:
                worker = _Worker(self.settings)
            except OSError:
                with self._lock:
                    self._started -= 1
                return started
            self._idle.put(worker)
            started += 1

    def _retire(self, worker: _Worker) -> None:
        worker.kill()
        with self._lock:
            self._started -= 1
            self.killed += 1

    @contextlib.contextmanager
    def _slot(self) -> Iterator[None]:
        if not self._slots.acquire(blocking=False):
            raise ParseBusy(BUSY)
        try:
            yield
        finally:
            self._slots.release()

    def run(self, target: str, *args: Any) -> Any:
        """``target(*args)`` (``"package.module:function"``) in a parser process; :class:`ParseFailed`."""
        with self._counted(), self._slot():
            return self._run(target, args)

    @contextlib.contextmanager
    def _counted(self) -> Iterator[None]:
        try:
            yield
        except ParseFailed as e:
            reason = next((name for cls, name in FAILURES if isinstance(e, cls)), "crashed")
            with self._lock:
                self.failures[reason] += 1
            raise

    async def run_async(self, target: str, *args: Any) -> Any:
        """:meth:`run` for async code: the slot is taken (or :class:`ParseBusy` raised) at once, the wait
        happens in a thread of the pool's own (never the default executor's, which other calls need)."""
        with self._counted(), self._slot():
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._waiters, self._run, target, args)

    def _run(self, target: str, args: tuple[Any, ...]) -> Any:
        deadline = time.monotonic() + self.settings.timeout_s
        worker = self._take(deadline)
        try:
            out = worker.call(target, args, self.settings.timeout_s)
        except ParseRejected:
            self._idle.put(worker)
            raise
        except BaseException:
            self._retire(worker)
            raise
        self._idle.put(worker)
        return out

    def close(self) -> None:
        """Stop the idle parser processes and the waiting threads."""
        self._waiters.shutdown(wait=False)
        while True:
            try:
                self._idle.get_nowait().kill()
            except queue.Empty:
                return


_pool: tuple[int, ParsePool] | None = None
_pool_lock = threading.Lock()


def shared_pool() -> ParsePool:
    """This process's pool (made on first use, from ``PULVEZAR_GATEWAY_PARSE_*``; a forked child
    makes its own)."""
    global _pool
    with _pool_lock:
        if _pool is None or _pool[0] != os.getpid():
            _pool = (os.getpid(), ParsePool())
        return _pool[1]


Failure = Callable[[ParseFailed, str], Exception]


@dataclasses.dataclass
class Isolation:
    """An :func:`isolated` block: its pool, how its failures are raised, and the reads done ahead."""

    pool: ParsePool
    failure: Failure | None = None
    ahead: dict[tuple[Any, ...], tuple[bool, Any]] = dataclasses.field(default_factory=dict)

    async def read_ahead(self, target: str, *args: Any) -> None:
        """Run ``target(*args)`` now, from async code (the wait on the pool's own threads); a
        :func:`run` of the same call within the block answers with its result or its failure."""
        try:
            self.ahead[(target, *args)] = (True, await self.pool.run_async(target, *args))
        except ParseFailed as e:
            self.ahead[(target, *args)] = (False, e)


_current: contextvars.ContextVar[Isolation | None] = contextvars.ContextVar("parse_isolation", default=None)


@contextlib.contextmanager
def isolated(pool: ParsePool, failure: Failure | None = None) -> Iterator[Isolation]:
    """Within this block (and the threads ``asyncio.to_thread`` starts from it), :func:`run` parses
    in ``pool``; ``failure(error, field)``: the exception to raise for a failed parse (the gateway's
    problem documents), else the :class:`ParseFailed` itself."""
    iso = Isolation(pool, failure)
    token = _current.set(iso)
    try:
        yield iso
    finally:
        _current.reset(token)


def run(target: str, *args: Any, field: str = "file") -> Any:
    """``target(*args)`` in the pool of the enclosing :func:`isolated` block (or its result read ahead),
    else in this process (the target's errors then propagate as they are)."""
    iso = _current.get()
    if iso is None:
        module, _, name = target.partition(":")
        return getattr(importlib.import_module(module), name)(*args)
    try:
        done = iso.ahead.pop((target, *args), None)
        if done is None:
            return iso.pool.run(target, *args)
        ok, out = done
        if ok:
            return out
        raise out
    except ParseFailed as e:
        if iso.failure is None:
            raise
        raise iso.failure(e, field) from None


def main(argv: list[str]) -> None:
    """A parser process: ``<read fd> <write fd> <memory bytes> <cpu seconds>``."""
    importlib.import_module("pulvezar.formats")  # the readers, before the memory limit is measured
    conn = _Duplex(Connection(int(argv[0]), writable=False), Connection(int(argv[1]), readable=False))
    _serve(conn, int(argv[2]), float(argv[3]))


if __name__ == "__main__":
    main(sys.argv[1:])
