"""The opening book's data model, its JSON form (versioned) and the JSON Schema of that form.

A book file is one JSON object (``format_version`` 1)::

    {
      "format": "pulvezar-opening-book", "format_version": 1,
      "rules": {"variant": "international", "hit_and_stop": false, "must_bear_off": false},
      "engine": {"name": "pulvezar", "version": "0.1.0", "model": "pulvezar-v1.pt",
                 "model_sha256": "...", "encoding_version": 2},
      "settings": {...},            # every setting that made it (BookSettings.to_json)
      "generated": "2026-11-29T19:40:00Z",
      "complete": true,             # false while rolls are missing (a run still in progress)
      "position_id": "4HPwATDgc/ABMA",
      "rolls": [{"roll": "31", "dice": [3, 1],
                 "candidates": [{"play": "8/5 6/5", "position_id": ..., "equity": ..., "loss": 0.0,
                                 "search_equity": ..., "rollout_equity": ..., "rollout_se": ...,
                                 "rollout_diff_se": ..., "trials": ..., "probabilities": {...},
                                 "search_probabilities": {...},
                                 "replies": {...}}],        # optional: the replies after this play
                 "replies": {"play": "8/5 6/5", "position_id": ..., "ply": 3,
                             "replies": [{"roll": "11", "dice": [1, 1], "play": ..., "equity": ...,
                                          "probabilities": {...}}]}}]
    }

A roll's ``replies`` are those after its best play (every book has them); a candidate's own
``replies`` (same form) are there in books made with ``replies_to = "all"`` (the replies after every
candidate: the shipped books), and are then the best's ``replies`` again for the first candidate.

Values are cubeless equities of the player who plays.  A candidate's ``equity`` is the mean of
its ``search_equity`` (the N-ply search) and its ``rollout_equity``; its ``probabilities`` are the
rollout's; ``loss`` is the best candidate's ``equity`` minus its own.  ``rollout_diff_se`` is the
standard error of the best candidate's rollout equity minus this one's: the candidates of a roll are
rolled out with the same dice, so it comes from the blocks of the paired differences and is smaller
than the two ``rollout_se`` combined (0 for the best; absent in books made before it was added).
A reply's values are those of the opponent, who plays it.  Probabilities are cumulative as in GNU
Backgammon: ``win_gammon`` includes ``win_backgammon``; they are clipped into 0..1 (a
variance-reduced rollout's estimate of a rare outcome can fall slightly outside), the equities are
not.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pulvezar.errors import PulvezarError

FORMAT = "pulvezar-opening-book"
FORMAT_VERSION = 1
PROBABILITY_NAMES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
VARIANTS = ("international", "tavla")
#: Where the shipped books live (the repository's ``data/book``).
BOOK_DIR = Path(__file__).resolve().parents[3] / "data" / "book"


class BookError(PulvezarError):
    """A book file or book request that is not valid; ``field`` is the JSON path of the fault."""


def roll_name(dice: tuple[int, int]) -> str:
    """``(3, 1)`` and ``(1, 3)`` -> ``"31"`` (larger die first)."""
    a, b = max(dice), min(dice)
    return f"{a}{b}"


def parse_roll(text: str, field: str = "roll") -> tuple[int, int]:
    """``"31"``, ``"13"`` or ``"3-1"`` -> ``(3, 1)``; :class:`BookError` otherwise."""
    s = text.strip().replace("-", "") if isinstance(text, str) else ""
    if len(s) != 2 or not all(c in "123456" for c in s):
        raise BookError(f"a roll is two dice 1..6 such as '31', got {text!r}", field=field)
    a, b = int(s[0]), int(s[1])
    return max(a, b), min(a, b)


def opening_rolls(variant: str) -> tuple[tuple[int, int], ...]:
    """The opening rolls of a rule set, larger die first: international has no doubles (15),
    Tavla all 21 (the opening is re-rolled, so the first player may play a double)."""
    rolls = tuple((a, b) for a in range(1, 7) for b in range(1, a + 1))
    return tuple(r for r in rolls if r[0] != r[1]) if variant == "international" else rolls


Probabilities = tuple[float, float, float, float, float]


def probs_json(p: Probabilities | list[float]) -> dict[str, float]:
    """Named probabilities, rounded to 6 places and clipped into 0..1 (a variance-reduced rollout's
    mean of a rare outcome, such as a backgammon, can come out a little below 0)."""
    return {
        name: round(min(1.0, max(0.0, float(v))), 6) for name, v in zip(PROBABILITY_NAMES, p, strict=True)
    }


@dataclass(frozen=True)
class BookCandidate:
    """One candidate play of an opening roll."""

    play: str
    position_id: str
    equity: float
    loss: float
    search_equity: float
    rollout_equity: float
    rollout_se: float
    trials: int
    probabilities: dict[str, float]
    search_probabilities: dict[str, float]
    #: standard error of (the best's rollout equity - this one's), same-dice pairs; None in old books
    rollout_diff_se: float | None = None
    #: the opponent's best replies after this play (books made with ``replies_to = "all"``)
    replies: BookReplies | None = None


@dataclass(frozen=True)
class BookReply:
    """The opponent's best reply to one of its rolls (values for the opponent)."""

    roll: str
    dice: tuple[int, int]
    play: str
    equity: float
    probabilities: dict[str, float]


@dataclass(frozen=True)
class BookReplies:
    """The best reply to each of the opponent's 21 rolls after ``play``."""

    play: str
    position_id: str
    ply: int
    replies: tuple[BookReply, ...]


@dataclass(frozen=True)
class BookRoll:
    """One opening roll: its candidates (best first) and the replies to the best one."""

    roll: str
    dice: tuple[int, int]
    candidates: tuple[BookCandidate, ...]
    replies: BookReplies | None

    @property
    def best(self) -> BookCandidate:
        return self.candidates[0]


@dataclass(frozen=True)
class Book:
    """An opening book with the provenance that made it."""

    rules: dict[str, Any]
    engine: dict[str, Any]
    settings: dict[str, Any]
    generated: str
    complete: bool
    position_id: str
    rolls: tuple[BookRoll, ...]

    @property
    def variant(self) -> str:
        return str(self.rules["variant"])

    def roll(self, dice: tuple[int, int] | str) -> BookRoll:
        """The entry of a roll (``(3, 1)`` or ``"31"``); :class:`BookError` (field ``roll``) if absent."""
        name = roll_name(parse_roll(dice) if isinstance(dice, str) else dice)
        for r in self.rolls:
            if r.roll == name:
                return r
        raise BookError(f"the {self.variant} book has no entry for the roll {name}", field="roll")

    # ---- JSON ---------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "rules": dict(self.rules),
            "engine": dict(self.engine),
            "settings": dict(self.settings),
            "generated": self.generated,
            "complete": self.complete,
            "position_id": self.position_id,
            "rolls": [roll_json(r) for r in self.rolls],
        }

    @classmethod
    def from_json(cls, data: Any) -> Book:
        """Check ``data`` against the format (:data:`BOOK_SCHEMA`) and build the book.

        Raises :class:`BookError` naming the first faulty field (``rolls[3].candidates[0].equity``).
        """
        return _parse_book(data)


def roll_json(r: BookRoll) -> dict[str, Any]:
    out: dict[str, Any] = {
        "roll": r.roll,
        "dice": list(r.dice),
        "candidates": [
            {
                "play": c.play,
                "position_id": c.position_id,
                "equity": c.equity,
                "loss": c.loss,
                "search_equity": c.search_equity,
                "rollout_equity": c.rollout_equity,
                "rollout_se": c.rollout_se,
                **({} if c.rollout_diff_se is None else {"rollout_diff_se": c.rollout_diff_se}),
                "trials": c.trials,
                "probabilities": dict(c.probabilities),
                "search_probabilities": dict(c.search_probabilities),
                **({} if c.replies is None else {"replies": replies_json(c.replies)}),
            }
            for c in r.candidates
        ],
        "replies": None if r.replies is None else replies_json(r.replies),
    }
    return out


def replies_json(replies: BookReplies) -> dict[str, Any]:
    """The JSON form of the replies after one play."""
    return {
        "play": replies.play,
        "position_id": replies.position_id,
        "ply": replies.ply,
        "replies": [
            {
                "roll": x.roll,
                "dice": list(x.dice),
                "play": x.play,
                "equity": x.equity,
                "probabilities": dict(x.probabilities),
            }
            for x in replies.replies
        ],
    }


def read_book(path: str | Path) -> Book:
    """Read and validate a book file (:class:`BookError` naming the faulty field)."""
    try:
        data = json.loads(Path(path).read_text())
    except ValueError as e:
        raise BookError(f"{path} is not JSON: {e}", field="book") from None
    return Book.from_json(data)


def book_path(variant: str) -> Path:
    """The shipped book file of a rule set."""
    if variant not in VARIANTS:
        raise BookError(f"'international' or 'tavla', got {variant!r}", field="rules")
    return BOOK_DIR / f"{variant}.json"


def load_book(variant: str = "international") -> Book:
    """The shipped book of ``variant`` (``"international"`` or ``"tavla"``), validated."""
    path = book_path(variant)
    if not path.exists():
        raise BookError(f"no {variant} opening book is shipped ({path} is missing)", field="rules")
    return read_book(path)


# ---- validation -------------------------------------------------------------------


def _obj(v: Any, field: str, keys: tuple[str, ...]) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise BookError(f"an object is required, got {type(v).__name__}", field=field)
    for k in keys:
        if k not in v:
            raise BookError("missing", field=f"{field}.{k}" if field else k)
    return v


def _num(v: Any, field: str, lo: float = -3.0, hi: float = 3.0) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise BookError(f"a finite number is required, got {v!r}", field=field)
    if not lo <= v <= hi:
        raise BookError(f"must be between {lo} and {hi}, got {v}", field=field)
    return float(v)


def _str(v: Any, field: str) -> str:
    if not isinstance(v, str) or not v:
        raise BookError(f"a non-empty string is required, got {v!r}", field=field)
    return v


def _int(v: Any, field: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise BookError(f"an integer {lo}..{hi} is required, got {v!r}", field=field)
    return v


def _dice(v: Any, field: str) -> tuple[int, int]:
    if not isinstance(v, list | tuple) or len(v) != 2:
        raise BookError(f"two dice are required, got {v!r}", field=field)
    a, b = (_int(d, f"{field}[{i}]", 1, 6) for i, d in enumerate(v))
    return a, b


def _probs(v: Any, field: str) -> dict[str, float]:
    o = _obj(v, field, PROBABILITY_NAMES)
    return {k: _num(o[k], f"{field}.{k}", 0.0, 1.0) for k in PROBABILITY_NAMES}


def _candidate(v: Any, f: str) -> BookCandidate:
    keys = (
        "play", "position_id", "equity", "loss", "search_equity", "rollout_equity", "rollout_se",
        "trials", "probabilities", "search_probabilities",
    )  # fmt: skip
    o = _obj(v, f, keys)
    replies = _replies(o.get("replies"), f"{f}.replies")
    if replies is not None and replies.position_id != o["position_id"]:
        raise BookError("the replies are after another play", field=f"{f}.replies.position_id")
    return BookCandidate(
        play=_str(o["play"], f"{f}.play"),
        position_id=_str(o["position_id"], f"{f}.position_id"),
        equity=_num(o["equity"], f"{f}.equity"),
        loss=_num(o["loss"], f"{f}.loss", 0.0, 6.0),
        search_equity=_num(o["search_equity"], f"{f}.search_equity"),
        rollout_equity=_num(o["rollout_equity"], f"{f}.rollout_equity"),
        rollout_se=_num(o["rollout_se"], f"{f}.rollout_se", 0.0, 3.0),
        trials=_int(o["trials"], f"{f}.trials", 1, 10**9),
        probabilities=_probs(o["probabilities"], f"{f}.probabilities"),
        search_probabilities=_probs(o["search_probabilities"], f"{f}.search_probabilities"),
        rollout_diff_se=(
            None
            if o.get("rollout_diff_se") is None
            else _num(o["rollout_diff_se"], f"{f}.rollout_diff_se", 0.0, 3.0)
        ),
        replies=replies,
    )


def _replies(v: Any, f: str) -> BookReplies | None:
    if v is None:
        return None
    o = _obj(v, f, ("play", "position_id", "ply", "replies"))
    items = o["replies"]
    if not isinstance(items, list) or len(items) != 21:
        raise BookError("the replies to all 21 rolls are required", field=f"{f}.replies")
    out = []
    for i, x in enumerate(items):
        g = f"{f}.replies[{i}]"
        xo = _obj(x, g, ("roll", "dice", "play", "equity", "probabilities"))
        dice = _dice(xo["dice"], f"{g}.dice")
        name = _str(xo["roll"], f"{g}.roll")
        if name != roll_name(dice):
            raise BookError(f"roll {name!r} does not match the dice {list(dice)}", field=f"{g}.roll")
        out.append(
            BookReply(
                roll=name,
                dice=dice,
                play=_str(xo["play"], f"{g}.play") if xo["play"] != "" else "",
                equity=_num(xo["equity"], f"{g}.equity"),
                probabilities=_probs(xo["probabilities"], f"{g}.probabilities"),
            )
        )
    return BookReplies(
        play=_str(o["play"], f"{f}.play"),
        position_id=_str(o["position_id"], f"{f}.position_id"),
        ply=_int(o["ply"], f"{f}.ply", 0, 3),
        replies=tuple(out),
    )


def _roll(v: Any, f: str) -> BookRoll:
    o = _obj(v, f, ("roll", "dice", "candidates", "replies"))
    dice = _dice(o["dice"], f"{f}.dice")
    name = _str(o["roll"], f"{f}.roll")
    if name != roll_name(dice) or dice[0] < dice[1]:
        raise BookError(f"roll {name!r} does not match the dice {list(dice)}", field=f"{f}.roll")
    cands = o["candidates"]
    if not isinstance(cands, list) or not cands:
        raise BookError("at least one candidate is required", field=f"{f}.candidates")
    parsed = tuple(_candidate(c, f"{f}.candidates[{i}]") for i, c in enumerate(cands))
    for i in range(1, len(parsed)):
        if parsed[i].equity > parsed[i - 1].equity:
            raise BookError("candidates are ordered best first", field=f"{f}.candidates[{i}].equity")
    return BookRoll(name, dice, parsed, _replies(o["replies"], f"{f}.replies"))


def _parse_book(data: Any) -> Book:
    keys = ("format", "format_version", "rules", "engine", "settings", "generated", "complete",
            "position_id", "rolls")  # fmt: skip
    o = _obj(data, "", keys)
    if o["format"] != FORMAT:
        raise BookError(f"not a pulvezar opening book ({o['format']!r})", field="format")
    if o["format_version"] != FORMAT_VERSION:
        raise BookError(
            f"format version {o['format_version']!r}; this pulvezar reads version {FORMAT_VERSION}",
            field="format_version",
        )
    rules = _obj(o["rules"], "rules", ("variant",))
    if rules["variant"] not in VARIANTS:
        raise BookError(f"'international' or 'tavla', got {rules['variant']!r}", field="rules.variant")
    engine = _obj(o["engine"], "engine", ("name", "version", "model", "model_sha256"))
    settings = _obj(o["settings"], "settings", ("trials", "ply", "seed"))
    if not isinstance(o["complete"], bool):
        raise BookError("true or false", field="complete")
    rolls_raw = o["rolls"]
    if not isinstance(rolls_raw, list):
        raise BookError("a list of rolls is required", field="rolls")
    rolls = tuple(_roll(r, f"rolls[{i}]") for i, r in enumerate(rolls_raw))
    allowed = opening_rolls(str(rules["variant"]))
    seen: set[tuple[int, int]] = set()
    for i, r in enumerate(rolls):
        if r.dice not in allowed:
            reason = f"{r.roll} is not an opening roll of {rules['variant']}"
            raise BookError(reason, field=f"rolls[{i}].roll")
        if r.dice in seen:
            raise BookError(f"{r.roll} appears twice", field=f"rolls[{i}].roll")
        seen.add(r.dice)
    wanted = settings.get("rolls")
    if isinstance(wanted, list) and all(isinstance(w, str) for w in wanted):
        want = {parse_roll(w, "settings.rolls") for w in wanted}
    else:
        want = set(allowed)
    if o["complete"] and seen != want:
        raise BookError(f"a complete book has all {len(want)} rolls it was made for", field="rolls")
    return Book(
        rules=dict(rules),
        engine=dict(engine),
        settings=dict(settings),
        generated=_str(o["generated"], "generated"),
        complete=o["complete"],
        position_id=_str(o["position_id"], "position_id"),
        rolls=rolls,
    )


# ---- JSON Schema (draft 2020-12) of the file format ---------------------------------------------

_NUM = {"type": "number"}
_PROBS = {
    "type": "object",
    "required": list(PROBABILITY_NAMES),
    "properties": {k: {"type": "number", "minimum": 0, "maximum": 1} for k in PROBABILITY_NAMES},
}
_DICE = {
    "type": "array",
    "minItems": 2,
    "maxItems": 2,
    "items": {"type": "integer", "minimum": 1, "maximum": 6},
}
_ROLL = {"type": "string", "pattern": "^[1-6][1-6]$"}
_REPLIES = {
    "type": "object",
    "required": ["play", "position_id", "ply", "replies"],
    "properties": {
        "play": {"type": "string"},
        "position_id": {"type": "string"},
        "ply": {"type": "integer", "minimum": 0, "maximum": 3},
        "replies": {
            "type": "array",
            "minItems": 21,
            "maxItems": 21,
            "items": {
                "type": "object",
                "required": ["roll", "dice", "play", "equity", "probabilities"],
                "properties": {
                    "roll": _ROLL,
                    "dice": _DICE,
                    "play": {"type": "string"},
                    "equity": _NUM,
                    "probabilities": _PROBS,
                },
            },
        },
    },
}

BOOK_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://pulvezar.org/schemas/opening-book-1.json",
    "title": "pulvezar opening book, format version 1",
    "type": "object",
    "required": [
        "format",
        "format_version",
        "rules",
        "engine",
        "settings",
        "generated",
        "complete",
        "position_id",
        "rolls",
    ],
    "properties": {
        "format": {"const": FORMAT},
        "format_version": {"const": FORMAT_VERSION},
        "rules": {
            "type": "object",
            "required": ["variant"],
            "properties": {
                "variant": {"enum": list(VARIANTS)},
                "hit_and_stop": {"type": "boolean"},
                "must_bear_off": {"type": "boolean"},
            },
        },
        "engine": {
            "type": "object",
            "required": ["name", "version", "model", "model_sha256"],
            "properties": {
                "name": {"type": "string"},
                "version": {"type": "string"},
                "model": {"type": "string"},
                "model_sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                "encoding_version": {"type": "integer"},
            },
        },
        "settings": {
            "type": "object",
            "required": ["trials", "ply", "seed"],
            "properties": {
                "trials": {"type": "integer", "minimum": 1},
                "ply": {"type": "integer", "minimum": 0, "maximum": 3},
                "seed": {"type": "integer", "minimum": 0},
            },
        },
        "generated": {"type": "string"},
        "complete": {"type": "boolean"},
        "position_id": {"type": "string"},
        "rolls": {
            "type": "array",
            "maxItems": 21,
            "items": {
                "type": "object",
                "required": ["roll", "dice", "candidates", "replies"],
                "properties": {
                    "roll": _ROLL,
                    "dice": _DICE,
                    "candidates": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "required": [
                                "play",
                                "position_id",
                                "equity",
                                "loss",
                                "search_equity",
                                "rollout_equity",
                                "rollout_se",
                                "trials",
                                "probabilities",
                                "search_probabilities",
                            ],
                            "properties": {
                                "play": {"type": "string"},
                                "position_id": {"type": "string"},
                                "equity": _NUM,
                                "loss": {"type": "number", "minimum": 0},
                                "search_equity": _NUM,
                                "rollout_equity": _NUM,
                                "rollout_se": {"type": "number", "minimum": 0},
                                "rollout_diff_se": {"type": "number", "minimum": 0},
                                "trials": {"type": "integer", "minimum": 1},
                                "probabilities": _PROBS,
                                "search_probabilities": _PROBS,
                                "replies": _REPLIES,
                            },
                        },
                    },
                    "replies": {"oneOf": [{"type": "null"}, _REPLIES]},
                },
            },
        },
    },
}
