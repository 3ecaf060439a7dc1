"""The socket gnubg connects to: one connection at a time, one answer line per board line.

gnubg writes each board as a line followed by a NUL byte and reads one line back.  The server reads
at most :data:`MAX_LINE` bytes per line (NULs and surrounding white space dropped): a longer line
is answered ``Error: ...`` and the connection closed, as is a connection idle for ``idle_timeout``
seconds.  An exception of ``answer`` is answered ``Error: internal error`` and printed to standard
error.  :meth:`ExternalServer.shutdown` (from a signal handler or another thread) ends
:meth:`~ExternalServer.serve_forever` within :data:`POLL` seconds, closing the open connection.
"""

from __future__ import annotations

import selectors
import socket
import sys
import threading
import time
from collections.abc import Callable

from pulvezar.external.player import ERROR_PREFIX

__all__ = ["MAX_LINE", "POLL", "ExternalServer"]

MAX_LINE = 1024  # bytes; gnubg's board lines are under 256
POLL = 0.2  # seconds between checks of the stop flag


class _LineTooLong(Exception):
    pass


class ExternalServer:
    """Listens on ``host:port`` (``port`` 0: any free port, see :attr:`port`) and answers each line
    with ``answer(line)``."""

    def __init__(
        self,
        answer: Callable[[str], str],
        host: str = "127.0.0.1",
        port: int = 0,
        idle_timeout: float = 3600.0,
    ) -> None:
        self.answer = answer
        self.idle_timeout = idle_timeout
        self._stop = threading.Event()
        self._sock = socket.create_server((host, port), reuse_port=False)
        self._sock.setblocking(False)
        self.host, self.port = self._sock.getsockname()[:2]

    def shutdown(self) -> None:
        """Ask :meth:`serve_forever` to return (safe from a signal handler)."""
        self._stop.set()

    def close(self) -> None:
        self._sock.close()

    def serve_forever(self) -> None:
        """Accept and serve connections, one at a time, until :meth:`shutdown`."""
        try:
            with selectors.DefaultSelector() as sel:
                sel.register(self._sock, selectors.EVENT_READ)
                while not self._stop.is_set():
                    if not sel.select(POLL):
                        continue
                    try:
                        conn, _ = self._sock.accept()
                    except (BlockingIOError, InterruptedError):
                        continue
                    with conn:
                        self._serve(conn)
        finally:
            self.close()

    def _serve(self, conn: socket.socket) -> None:
        conn.setblocking(False)
        buf = bytearray()
        with selectors.DefaultSelector() as sel:
            sel.register(conn, selectors.EVENT_READ)
            last = time.monotonic()
            while not self._stop.is_set():
                if not sel.select(POLL):
                    if time.monotonic() - last > self.idle_timeout:
                        return
                    continue
                try:
                    data = conn.recv(4096)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    return
                if not data:
                    return
                last = time.monotonic()
                buf += data
                try:
                    for line in self._lines(buf):
                        self._send(conn, self._answer(line))
                except _LineTooLong:
                    self._send(conn, f"{ERROR_PREFIX}a line longer than {MAX_LINE} bytes")
                    return
                except OSError:
                    return

    def _answer(self, line: str) -> str:
        """``answer(line)``; a failure of the engine is answered as an error, the server goes on."""
        try:
            return self.answer(line)
        except Exception as e:  # one bad decision must not end the server
            print(f"pulvezar external: {type(e).__name__}: {e}", file=sys.stderr)
            return f"{ERROR_PREFIX}internal error ({type(e).__name__})"

    @staticmethod
    def _lines(buf: bytearray) -> list[str]:
        """The complete lines in ``buf`` (removed from it), decoded, NULs dropped, blank ones skipped."""
        out = []
        while (i := buf.find(b"\n")) >= 0:
            raw = bytes(buf[:i]).replace(b"\0", b"")
            del buf[: i + 1]
            if len(raw) > MAX_LINE:
                raise _LineTooLong
            text = raw.decode("utf-8", "replace").strip()
            if text:
                out.append(text)
        if len(buf) > MAX_LINE:
            raise _LineTooLong
        return out

    @staticmethod
    def _send(conn: socket.socket, text: str) -> None:
        conn.setblocking(True)
        conn.settimeout(10.0)
        try:
            conn.sendall(text.encode("utf-8", "replace") + b"\n")
        finally:
            conn.setblocking(False)
