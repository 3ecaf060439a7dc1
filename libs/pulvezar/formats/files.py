"""Match files by path: the reader or writer chosen by extension (a ``.txt`` also by content).

Formats: ``.mat`` (and Jellyfish-style ``.txt`` on input), ``.txt`` (readable
text, output), ``.sgf``, ``.xg`` and Gibbon's ``.gmd`` (input).  A ``.txt``
input that is GNU Backgammon's text export (a ``The score (after N games)``
line first, or ``Position ID:``/``Match ID :`` lines) is read as one.  Reader
modules are imported when used, so a missing one is a clear error.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pulvezar.errors import PulvezarError
from pulvezar.formats.limits import DEFAULT_LIMITS, Limits
from pulvezar.formats.record import MatchRecord

__all__ = ["READERS", "WRITERS", "FileError", "read_match", "write_match", "writer_for"]

# extension -> (module, function)
READERS = {
    ".mat": ("pulvezar.formats.mat", "read_mat"),
    ".txt": ("pulvezar.formats.mat", "read_mat"),  # Jellyfish-style match text, as many sites export it
    ".sgf": ("pulvezar.formats.sgf", "read_sgf"),
    ".xg": ("pulvezar.formats.xg", "read_xg"),
    ".gmd": ("pulvezar.formats.gmd", "read_gmd"),
}
# a .txt input whose content is gnubg's text export ("export game text") instead
_GNUBG_TEXT = ("pulvezar.formats.gnubgtext", "read_gnubg_text")
WRITERS = {
    ".mat": ("pulvezar.formats.mat", "write_mat"),
    ".txt": ("pulvezar.formats.text", "write_text"),
    ".sgf": ("pulvezar.formats.sgf", "write_sgf"),
}


class FileError(PulvezarError):
    """A match file that cannot be read or written: unknown format, missing module, unreadable file."""


def _function(table: dict[str, tuple[str, str]], path: Path, what: str) -> Callable[..., Any]:
    ext = path.suffix.lower()
    if ext not in table:
        known = ", ".join(sorted(table))
        raise FileError(f"{path}: cannot {what} {ext or 'files without an extension'} (known: {known})")
    module_name, name = table[ext]
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        raise FileError(
            f"{path}: {ext} files are not supported in this build ({module_name} is missing)"
        ) from None
    fn = getattr(module, name, None)
    if not callable(fn):
        raise FileError(f"{path}: cannot {what} {ext} files ({module_name}.{name} is missing)")
    return fn  # type: ignore[no-any-return]


def writer_for(path: Path) -> Callable[..., Any]:
    """The writer of ``path``'s extension; :class:`FileError` when there is none."""
    return _function(WRITERS, path, "write")


def _is_gnubg_text(data: bytes) -> bool:
    """Whether a ``.txt`` file is gnubg's text export (``False`` where that reader is not in this build)."""
    try:
        module = importlib.import_module(_GNUBG_TEXT[0])
    except ImportError:
        return False
    sniff = getattr(module, "is_gnubg_text", None)
    return callable(sniff) and bool(sniff(data))


def read_match(path: Path, *, limits: Limits | None = None) -> MatchRecord:
    """Read a match file, choosing the reader by extension (a ``.txt`` also by content).

    A file over ``limits.max_bytes`` is refused before it is read.
    """
    path = Path(path)
    limits = limits or DEFAULT_LIMITS
    reader = _function(READERS, path, "read")
    try:
        size = path.stat().st_size
        if size > limits.max_bytes:
            raise FileError(f"{path}: {size} bytes, more than allowed (cap max_bytes={limits.max_bytes})")
        data = path.read_bytes()
    except OSError as e:
        raise FileError(f"{path}: {e.strerror or e}") from None
    if path.suffix.lower() == ".txt" and _is_gnubg_text(data):
        reader = _function({".txt": _GNUBG_TEXT}, path, "read")
    try:
        record = reader(data, limits=limits)
    except PulvezarError as e:
        raise FileError(f"{path}: {e}") from None
    except Exception as e:  # a reader's failure on a bad file is still the file's problem
        raise FileError(f"{path}: not a readable {path.suffix} file ({type(e).__name__}: {e})") from None
    if not isinstance(record, MatchRecord):
        raise FileError(f"{path}: the {path.suffix} reader returned {type(record).__name__}, not a match")
    return record


def write_match(record: MatchRecord, path: Path) -> None:
    """Write ``record`` in the format of ``path``'s extension."""
    path = Path(path)
    out = writer_for(path)(record)
    try:
        if isinstance(out, bytes):
            path.write_bytes(out)
        else:
            path.write_text(str(out), encoding="utf-8")
    except OSError as e:
        raise FileError(f"{path}: {e.strerror or e}") from None
