"""A small decoder of Smile, Jackson's binary JSON (FasterXML's Smile format specification 1.0).

Only what a JSON document needs: objects, arrays, strings (with shared names
and shared values), integers, 32/64-bit floats, ``true``/``false``/``null``.
Binary values and big numbers are refused with :class:`SmileError` (BGBlitz
does not write them).  No PyPI package decodes Smile with caps (``pysmile``
was last released in 2015, ``newsmile`` in 2022, both recursive and uncapped),
hence this one.

The decoder is iterative (no recursion) and linear in its input; it holds the
caps of :class:`~pulvezar.formats.limits.Limits`: ``bgf_max_depth`` (nesting
of objects and arrays), ``bgf_max_string_bytes`` (one string or name) and
``bgf_max_elements`` (values and names in the document).  Every failure is a
:class:`SmileError` (or :class:`~pulvezar.formats.limits.FileTooLargeError` for
a cap) whose column is the byte offset plus one.
"""

from __future__ import annotations

import struct
from typing import Any

from pulvezar.formats.limits import DEFAULT_LIMITS, FileTooLargeError, Limits
from pulvezar.formats.record import MatchFileError

__all__ = ["HEADER", "SmileError", "decode_smile", "is_smile"]

HEADER = b":)\n"
_SHARED_NAMES = 0x01
_SHARED_VALUES = 0x02
_TABLE = 1024  # both back-reference tables hold at most this many entries, then start again
_END_STRING = 0xFC


class SmileError(MatchFileError):
    """Bytes that are not Smile this decoder reads; ``column`` is the byte offset + 1."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"Smile: {message}", line=1, column=offset + 1)
        self.offset = offset


def is_smile(head: bytes) -> bool:
    """Whether bytes start with a Smile header (``:)\\n`` and a version-0 byte)."""
    return head[:3] == HEADER and len(head) > 3 and head[3] >> 4 == 0


class _Table:
    """A back-reference table: entries by index, emptied when it is full."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, text: str) -> None:
        if len(self.items) >= _TABLE:
            self.items.clear()
        self.items.append(text)


class _Decoder:
    def __init__(self, data: bytes, limits: Limits) -> None:
        self.data = data
        self.pos = 0
        self.limits = limits
        self.elements = 0
        self.names: _Table | None = None
        self.values: _Table | None = None

    # ---- bytes ----------------------------------------------------------------------------------------
    def fail(self, message: str, at: int | None = None) -> SmileError:
        return SmileError(message, self.pos if at is None else at)

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise self.fail("the document ends early")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def take(self, n: int) -> bytes:
        if n > self.limits.bgf_max_string_bytes:
            cap = self.limits.bgf_max_string_bytes
            raise FileTooLargeError(
                "bgf_max_string_bytes",
                cap,
                f"a string of {n} bytes at offset {self.pos}",
                column=self.pos + 1,
            )
        end = self.pos + n
        if end > len(self.data):
            raise self.fail(f"{n} bytes wanted, {len(self.data) - self.pos} left")
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def until_end_marker(self) -> bytes:
        cap = self.limits.bgf_max_string_bytes
        end = self.data.find(_END_STRING, self.pos, self.pos + cap + 1)
        if end < 0:
            if len(self.data) - self.pos > cap:
                raise FileTooLargeError(
                    "bgf_max_string_bytes",
                    cap,
                    f"a string longer than allowed at offset {self.pos}",
                    column=self.pos + 1,
                )
            raise self.fail("a long string has no end marker")
        chunk = self.data[self.pos : end]
        self.pos = end + 1
        return chunk

    def text(self, raw: bytes, at: int) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise self.fail("a string is not UTF-8", at) from None

    def count(self) -> None:
        self.elements += 1
        if self.elements > self.limits.bgf_max_elements:
            cap = self.limits.bgf_max_elements
            raise FileTooLargeError("bgf_max_elements", cap, f"more than {cap} values", column=self.pos + 1)

    # ---- numbers --------------------------------------------------------------------------------------
    def vint(self, most: int) -> int:
        """An unsigned VInt of at most ``most`` bytes (7 bits each, the last 6 bits with MSB set)."""
        at = self.pos
        value = 0
        for _ in range(most):
            b = self.byte()
            if b & 0x80:
                if b & 0x40:
                    raise self.fail("a VInt's last byte has bit 6 set", self.pos - 1)
                return (value << 6) | (b & 0x3F)
            value = (value << 7) | b
        raise self.fail(f"a VInt longer than {most} bytes", at)

    @staticmethod
    def unzigzag(n: int) -> int:
        return (n >> 1) ^ -(n & 1)

    def seven_bit(self, n: int) -> int:
        """``n`` bytes carrying 7 bits each, right-aligned, as one unsigned integer."""
        value = 0
        for b in self.take(n):
            if b & 0x80:
                raise self.fail("a 7-bit encoded byte has its high bit set", self.pos - 1)
            value = (value << 7) | b
        return value

    # ---- tokens ---------------------------------------------------------------------------------------
    def key(self, b: int, at: int) -> str:
        """The name of key token ``b`` (an object's end is handled by the caller)."""
        if b == 0x20:
            return ""
        if 0x30 <= b <= 0x33 or 0x40 <= b <= 0x7F:
            index = ((b & 0x03) << 8) | self.byte() if b < 0x40 else b - 0x40
            if self.names is None:
                raise self.fail("a shared name but the header turned shared names off", at)
            if index >= len(self.names.items):
                raise self.fail(f"shared name {index} is not defined", at)
            return self.names.items[index]
        if b == 0x34:
            name = self.text(self.until_end_marker(), at)
        elif 0x80 <= b <= 0xBF:
            name = self.text(self.take((b & 0x3F) + 1), at)
        elif 0xC0 <= b <= 0xF7:
            name = self.text(self.take((b & 0x3F) + 2), at)
        else:
            raise self.fail(f"byte 0x{b:02x} is not a name", at)
        if self.names is not None:
            self.names.add(name)
        return name

    def shared_value(self, index: int, at: int) -> str:
        if self.values is None:
            raise self.fail("a shared string but the header turned shared strings off", at)
        if index >= len(self.values.items):
            raise self.fail(f"shared string {index} is not defined", at)
        return self.values.items[index]

    def short_string(self, n: int, at: int) -> str:
        s = self.text(self.take(n), at)
        if self.values is not None:
            self.values.add(s)
        return s

    def scalar(self, b: int, at: int) -> Any:
        """The value of a scalar token ``b`` (structure tokens are handled by the caller)."""
        if 0x01 <= b <= 0x1F:
            return self.shared_value(b - 1, at)
        if b == 0x20:
            return ""
        if b == 0x21:
            return None
        if b in (0x22, 0x23):
            return b == 0x23
        if b in (0x24, 0x25):
            return self.unzigzag(self.vint(5 if b == 0x24 else 10))
        if b == 0x28:
            return struct.unpack(">f", struct.pack(">I", self.seven_bit(5) & 0xFFFFFFFF))[0]
        if b == 0x29:
            return struct.unpack(">d", struct.pack(">Q", self.seven_bit(10) & 0xFFFFFFFFFFFFFFFF))[0]
        if 0x40 <= b <= 0x7F:  # tiny (1-32) and short (33-64) ASCII
            return self.short_string((b & 0x1F) + (1 if b < 0x60 else 33), at)
        if 0x80 <= b <= 0xBF:  # tiny (2-33) and short (34-65) Unicode
            return self.short_string((b & 0x1F) + (2 if b < 0xA0 else 34), at)
        if 0xC0 <= b <= 0xDF:
            return self.unzigzag(b & 0x1F)
        if 0xE0 <= b <= 0xE7:  # long ASCII / Unicode, not shared
            return self.text(self.until_end_marker(), at)
        if 0xEC <= b <= 0xEF:
            return self.shared_value(((b & 0x03) << 8) | self.byte(), at)
        if b in (0x26, 0x2A, 0xE8, 0xFD):
            raise self.fail(f"token 0x{b:02x} (big numbers, binary) is not read", at)
        raise self.fail(f"byte 0x{b:02x} is not a value", at)

    # ---- the document -----------------------------------------------------------------------------------
    def header(self) -> None:
        if self.data[:3] != HEADER or len(self.data) < 4:
            raise self.fail("no Smile header (':)\\n')", 0)
        flags = self.data[3]
        if flags >> 4:
            raise self.fail(f"Smile version {flags >> 4} is not read", 3)
        self.names = _Table() if flags & _SHARED_NAMES else None
        self.values = _Table() if flags & _SHARED_VALUES else None
        self.pos = 4

    def document(self) -> Any:
        self.header()
        # each frame: [container, name waiting for its value or None]; objects are dicts
        stack: list[list[Any]] = []
        root: Any = None
        done = False
        while not done:
            at = self.pos
            top = stack[-1] if stack else None
            if top is not None and isinstance(top[0], dict) and top[1] is None:
                b = self.byte()
                if b == 0xFB:
                    value = stack.pop()[0]
                else:
                    self.count()
                    top[1] = self.key(b, at)
                    continue
            else:
                b = self.byte()
                if b in (0xF8, 0xFA):
                    self.count()
                    if len(stack) >= self.limits.bgf_max_depth:
                        cap = self.limits.bgf_max_depth
                        raise FileTooLargeError(
                            "bgf_max_depth", cap, f"nesting deeper than {cap} at offset {at}", column=at + 1
                        )
                    stack.append([[] if b == 0xF8 else {}, None])
                    continue
                if b == 0xF9:
                    if top is None or not isinstance(top[0], list):
                        raise self.fail("an array end outside an array", at)
                    value = stack.pop()[0]
                else:
                    self.count()
                    value = self.scalar(b, at)
            # attach the finished value
            if not stack:
                root, done = value, True
            elif isinstance(stack[-1][0], dict):
                stack[-1][0][stack[-1][1]] = value
                stack[-1][1] = None
            else:
                stack[-1][0].append(value)
        rest = self.data[self.pos :]
        if rest and rest != b"\xff":
            raise self.fail("bytes after the document")
        return root


def decode_smile(data: bytes, *, limits: Limits | None = None) -> Any:
    """The JSON value of one Smile document (header, one value, an optional 0xFF end marker)."""
    return _Decoder(bytes(data), limits or DEFAULT_LIMITS).document()
