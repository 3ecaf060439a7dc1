"""The caps every match-file reader enforces, so that a hostile file costs bounded time and memory.

Each reader takes ``limits=`` (a :class:`Limits`; :data:`DEFAULT_LIMITS` when
left out).  A file beyond a cap raises :class:`FileTooLargeError` (a
:class:`~pulvezar.formats.record.MatchFileError`) whose message names the cap
and its value, before the work it would cost is done.  Defaults:

==========================  ============  ===============================================
cap                         default       applies to
==========================  ============  ===============================================
``max_bytes``               16 MiB        the input (all texts of a gnubg text export)
``max_lines``               1,000,000     lines of .mat, .gmd, gnubg text
``max_line_chars``          65,536        one line of .mat, .gmd, gnubg text
``max_games``               10,000        games of one file
``max_actions``             10,000        action lines / nodes / records of one game
``max_digits``              9             digits of one number (length, score, cube, ...)
``xg_max_entries``          64            files in an .xg archive
``xg_max_entry_bytes``      32 MiB        one inflated archive entry
``xg_max_total_bytes``      64 MiB        all inflated archive entries together
``sgf_max_depth``           100           nested game trees (variations) of an SGF file
``sgf_max_nodes``           500,000       nodes of an SGF file
``ogxm_max_stream_bytes``   256 MiB       an .ogxms stream as given (compressed or not)
``ogxm_max_decompressed``   512 MiB       ``ogxm_max_decompressed_bytes``: the bytes a
                                          stream decompresses to (a zstd bomb stops here)
``ogxm_max_matches``        10,000        matches of one stream
``bgf_max_decompressed``    64 MiB        ``bgf_max_decompressed_bytes``: the bytes a .bgf
                                          body inflates to (a gzip bomb stops here)
``bgf_max_depth``           64            nested objects and arrays of a .bgf document
``bgf_max_string_bytes``    1 MiB         one string or name of a .bgf document
``bgf_max_elements``        4,000,000     values and names of a .bgf document
==========================  ============  ===============================================

One ``.ogxm`` file, and each member of a stream, is also held to ``max_bytes``,
``max_games`` and ``max_actions`` (plies of a game).

All readers are linear in their input: no regular expression with nested or
overlapping quantifiers runs over user text, and the SGF tree is parsed
without recursion.
"""

from __future__ import annotations

from dataclasses import dataclass

from pulvezar.formats.record import MatchFileError

__all__ = [
    "DEFAULT_LIMITS",
    "FileTooLargeError",
    "Limits",
    "check_bytes",
    "check_count",
    "parse_int",
    "split_lines",
]

_MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps of one read; see the module's table for what each bounds."""

    max_bytes: int = 16 * _MIB
    max_lines: int = 1_000_000
    max_line_chars: int = 65_536
    max_games: int = 10_000
    max_actions: int = 10_000
    max_digits: int = 9
    xg_max_entries: int = 64
    xg_max_entry_bytes: int = 32 * _MIB
    xg_max_total_bytes: int = 64 * _MIB
    sgf_max_depth: int = 100
    sgf_max_nodes: int = 500_000
    ogxm_max_stream_bytes: int = 256 * _MIB
    ogxm_max_decompressed_bytes: int = 512 * _MIB
    ogxm_max_matches: int = 10_000
    bgf_max_decompressed_bytes: int = 64 * _MIB
    bgf_max_depth: int = 64
    bgf_max_string_bytes: int = _MIB
    bgf_max_elements: int = 4_000_000


DEFAULT_LIMITS = Limits()


class FileTooLargeError(MatchFileError):
    """A match file beyond a cap: ``cap`` is the :class:`Limits` field, ``limit`` its value."""

    def __init__(self, cap: str, limit: int, message: str, *, line: int = 1, column: int = 1) -> None:
        super().__init__(f"{message} (cap {cap}={limit})", line=line, column=column)
        self.cap = cap
        self.limit = limit


def check_bytes(size: int, limits: Limits) -> None:
    """:class:`FileTooLargeError` when an input of ``size`` bytes (or characters) is over ``max_bytes``."""
    if size > limits.max_bytes:
        raise FileTooLargeError(
            "max_bytes", limits.max_bytes, f"the file has {size} bytes, more than allowed"
        )


def split_lines(text: str, limits: Limits) -> list[str]:
    """``text``'s lines (``\\n``-separated), the line count and every line's length checked."""
    check_bytes(len(text), limits)
    count = text.count("\n") + 1
    if count > limits.max_lines:
        raise FileTooLargeError(
            "max_lines",
            limits.max_lines,
            f"the file has {count} lines, more than allowed",
            line=limits.max_lines + 1,
        )
    lines = text.split("\n")
    if len(text) > limits.max_line_chars:  # a short text cannot have a long line
        for n, line in enumerate(lines, start=1):
            if len(line) > limits.max_line_chars:
                raise FileTooLargeError(
                    "max_line_chars", limits.max_line_chars, f"line {n} has {len(line)} characters", line=n
                )
    return lines


def parse_int(digits: str, what: str, limits: Limits, *, line: int, column: int = 1) -> int:
    """The value of a string of decimal digits, at most ``max_digits`` of them (a typed error otherwise)."""
    digits = digits.strip()
    if not digits.isdecimal():
        raise MatchFileError(f"{what}: expected a number, got {digits[:40]!r}", line=line, column=column)
    if len(digits) > limits.max_digits:
        raise FileTooLargeError(
            "max_digits", limits.max_digits, f"{what} has {len(digits)} digits", line=line, column=column
        )
    return int(digits)


def check_count(cap: str, count: int, limits: Limits, what: str, *, line: int = 1) -> None:
    """:class:`FileTooLargeError` when ``count`` (games, actions, ...) is over ``limits``' ``cap``."""
    limit = int(getattr(limits, cap))
    if count > limit:
        raise FileTooLargeError(cap, limit, f"more than {limit} {what}", line=line)
