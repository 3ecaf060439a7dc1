"""Match files by path: the reader or writer chosen by extension (a ``.txt`` also by content).

Formats: ``.mat`` (and Jellyfish-style ``.txt`` on input), ``.txt`` (readable
text, output), ``.sgf``, ``.ogxm``, ``.xg``, Gibbon's ``.gmd`` and BGBlitz's
``.bgf`` (input).  A ``.txt``
input that is GNU Backgammon's text export (a ``The score (after N games)``
line first, or ``Position ID:``/``Match ID :`` lines) is read as one.  Reader
modules are imported when used, so a missing one is a clear error.

Streams of many matches (OGXM's ``.ogxms`` and ``.ogxms.zst``, input) are
read by :func:`read_stream`; :func:`read_match` reads one only when it holds
exactly one match and nothing else.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pulvezar.errors import PulvezarError
from pulvezar.formats.limits import DEFAULT_LIMITS, Limits
from pulvezar.formats.record import MatchRecord

__all__ = [
    "FORMATS",
    "READERS",
    "STREAMS",
    "WRITERS",
    "FileError",
    "detect_format",
    "extension",
    "is_stream",
    "read_bytes",
    "read_match",
    "read_stream",
    "write_match",
    "writer_for",
]

# extension -> (module, function)
READERS = {
    ".mat": ("pulvezar.formats.mat", "read_mat"),
    ".txt": ("pulvezar.formats.mat", "read_mat"),  # Jellyfish-style match text, as many sites export it
    ".sgf": ("pulvezar.formats.sgf", "read_sgf"),
    ".xg": ("pulvezar.formats.xg", "read_xg"),
    ".gmd": ("pulvezar.formats.gmd", "read_gmd"),
    ".ogxm": ("pulvezar.formats.ogxm", "read_ogxm"),
    ".bgf": ("pulvezar.formats.bgf", "read_bgf"),  # BGBlitz
}
# streams of many matches: extension -> (module, function reading a binary file object)
STREAMS = {
    ".ogxms": ("pulvezar.formats.ogxm", "read_ogxm_stream"),
    ".ogxms.zst": ("pulvezar.formats.ogxm", "read_ogxm_stream"),
}
# a .txt input whose content is gnubg's text export ("export game text") instead
_GNUBG_TEXT = ("pulvezar.formats.gnubgtext", "read_gnubg_text")
WRITERS = {
    ".mat": ("pulvezar.formats.mat", "write_mat"),
    ".txt": ("pulvezar.formats.text", "write_text"),
    ".sgf": ("pulvezar.formats.sgf", "write_sgf"),
    ".ogxm": ("pulvezar.formats.ogxm", "write_ogxm"),
}


class FileError(PulvezarError):
    """A match file that cannot be read or written: unknown format, missing module, unreadable file."""


#: the formats a match file's bytes are read in (an upload names one, else its name or first bytes say)
FORMATS = ("mat", "sgf", "xg", "gmd", "ogxm", "bgf")


def detect_format(data: bytes, filename: str | None = None) -> str:
    """A match file's format from its name (``.mat``/``.txt``, ``.sgf``, ``.xg``, ``.gmd``, ``.ogxm``,
    ``.bgf``), else its first bytes; ``mat`` when nothing says otherwise.

    >>> detect_format(b"(;FF[4]GM[6]", None), detect_format(b"OGXM...", "x.bin"), detect_format(b"", "a.TXT")
    ('sgf', 'ogxm', 'mat')
    """
    ext = filename.rsplit(".", 1)[-1].lower() if filename and "." in filename else ""
    if ext in ("mat", "txt"):
        return "mat"
    if ext in FORMATS:
        return ext
    if data[:4] == b"RGMH":
        return "xg"
    if data[:4] == b"OGXM":
        return "ogxm"
    first = data[:4096].split(b"\n", 1)[0]
    if first.startswith(b"{") and b'"BGF"' in first:
        return "bgf"  # BGBlitz: a JSON header line naming the format
    head = data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"GMD-"):
        return "gmd"
    if head.startswith(b"(") and b";" in head[:8]:
        return "sgf"
    return "mat"


def read_bytes(data: bytes, fmt: str, *, limits: Limits | None = None) -> MatchRecord:
    """The match of a file's bytes in format ``fmt`` (one of :data:`FORMATS`): the reader's own
    :class:`~pulvezar.errors.PulvezarError` for a file it cannot read, :class:`FileError` for a format
    it does not know."""
    if fmt not in FORMATS:
        raise FileError(f"the format is one of {', '.join(FORMATS)}, got {fmt!r}", field="format")
    reader = _function(READERS, Path(f"file.{fmt}"), "read")
    return reader(data, limits=limits or DEFAULT_LIMITS)  # type: ignore[no-any-return]


def extension(path: Path) -> str:
    """The format's extension of ``path``, lower case: ``.ogxms.zst`` for a compressed stream."""
    name = Path(path).name.lower()
    return ".ogxms.zst" if name.endswith(".ogxms.zst") else Path(name).suffix


def is_stream(path: Path) -> bool:
    """Whether ``path`` names a stream of many matches (:data:`STREAMS`)."""
    return extension(path) in STREAMS


def _function(table: dict[str, tuple[str, str]], path: Path, what: str) -> Callable[..., Any]:
    ext = extension(path)
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
    if is_stream(path):
        return _only_match(read_stream(path, limits=limits), path)
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


def read_stream(path: Path, *, limits: Limits | None = None) -> Any:
    """Read a stream of matches (``.ogxms``, ``.ogxms.zst``): an :class:`~pulvezar.formats.ogxm.OgxmStream`.

    Its entries are the matches, the members skipped with their reasons and
    where a truncated stream stopped; caps as :mod:`pulvezar.formats.limits`.
    """
    path = Path(path)
    limits = limits or DEFAULT_LIMITS
    reader = _function(STREAMS, path, "read")
    try:
        size = path.stat().st_size
        if size > limits.ogxm_max_stream_bytes:
            cap = limits.ogxm_max_stream_bytes
            raise FileError(f"{path}: {size} bytes, more than allowed (cap ogxm_max_stream_bytes={cap})")
        with path.open("rb") as f:
            return reader(f, limits=limits)
    except OSError as e:
        raise FileError(f"{path}: {e.strerror or e}") from None
    except PulvezarError as e:
        raise FileError(f"{path}: {e}") from None


def _only_match(stream: Any, path: Path) -> MatchRecord:
    """The one match of a stream that holds exactly one and nothing else."""
    matches = stream.matches
    if len(matches) == 1 and len(stream.entries) == 1:
        record: MatchRecord = matches[0].record
        return record
    parts = [f"{len(matches)} matches"]
    if stream.skipped:
        parts.append(f"{len(stream.skipped)} skipped member(s)")
    if stream.truncated is not None:
        parts.append(f"truncated at offset {stream.truncated.offset}")
    raise FileError(f"{path}: a stream of {', '.join(parts)}, not one match (read it as a stream)")


def write_match(record: MatchRecord, path: Path) -> None:
    """Write ``record`` in the format of ``path``'s extension."""
    path = Path(path)
    writer = writer_for(path)
    try:
        out = writer(record)
    except FileError:
        raise
    except PulvezarError as e:  # a match the format cannot carry (OGXM: Tavla)
        raise FileError(f"{path}: {e}") from None
    try:
        if isinstance(out, bytes):
            path.write_bytes(out)
        else:
            path.write_text(str(out), encoding="utf-8")
    except OSError as e:
        raise FileError(f"{path}: {e.strerror or e}") from None
