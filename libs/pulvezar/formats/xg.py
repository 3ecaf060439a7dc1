"""eXtreme Gammon binary match files (``.xg``).

An ``.xg`` file is a ``RGMH`` header (8232 bytes, then a JPEG thumbnail)
followed by a zlib archive whose index sits at the end of the file.  The
archive's ``temp.xg`` holds fixed-size (2560-byte) little-endian records:
match header, then per game a game header, cube and move records and a game
footer, then a match footer; ``temp.xgc`` holds the comments (RTF).  The
layout follows the description published by XG's maker.

XG's player 1 is our player ``0``.  Every game is replayed through the match
model like a ``.mat`` game: each move record must lead from the replayed
position to a legal play (its notation is ours, canonical), a game is cut at
the first record the rules do not allow (:attr:`GameRecord.cut_at`), and
what XG records beside the actions (errors, luck, candidate equities,
comments) is kept in ``props``.

Errors: :class:`MatchFileError` with ``line`` 1 and ``column`` the 1-based
byte offset, in the file for the container or in ``temp.xg`` (the message
says which record) for the records.
"""

from __future__ import annotations

import math
import struct
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from pulvezar.errors import PulvezarError
from pulvezar.formats.limits import DEFAULT_LIMITS, FileTooLargeError, Limits, check_bytes, check_count
from pulvezar.formats.record import Action, GameRecord, MatchFileError, MatchRecord, apply_action
from pulvezar.match.game import Game, Phase, SessionOptions
from pulvezar.rules.position import Position
from pulvezar.rules.rules import LegalPlays

__all__ = ["read_xg"]

_MAGIC = b"RGMH"
_HEADER_SIZE = 8232
_ARCHIVE_TAIL = 36  # crc, file count, version, registry size, archive size, compressed registry, 12 reserved
_FILE_ENTRY = 532  # name[256], path[256] (short strings), sizes, start, crc, flags
_RECORD = 2560
_NOT_ANALYSED = -1000.0
_MONEY = 99999
_VARIATIONS = ("Backgammon", "Nackgammon", "Hypergammon", "Longgammon")
_READ = ("temp.xg", "temp.xgc")  # the archive entries the reader uses; the others are never inflated

# temp.xg record types
_MATCH, _GAME, _CUBE, _MOVE, _GAME_END, _MATCH_END, _MISSING = range(7)


def _fail(message: str, offset: int = 0) -> MatchFileError:
    return MatchFileError(message, line=1, column=offset + 1)


@dataclass(frozen=True, slots=True)
class _Rec:
    """One temp.xg record and where it starts in temp.xg."""

    data: bytes
    offset: int

    @property
    def number(self) -> int:
        return self.offset // _RECORD + 1

    @property
    def kind(self) -> int:
        return self.data[8]

    def i32(self, at: int, n: int = 1) -> tuple[int, ...]:
        return struct.unpack_from(f"<{n}i", self.data, at)

    def i8(self, at: int, n: int) -> tuple[int, ...]:
        return struct.unpack_from(f"<{n}b", self.data, at)

    def f64(self, at: int) -> float:
        return float(struct.unpack_from("<d", self.data, at)[0])

    def f32(self, at: int, n: int) -> tuple[float, ...]:
        return struct.unpack_from(f"<{n}f", self.data, at)

    def short(self, at: int, size: int) -> str:
        """A Delphi ShortString of ``size`` bytes (length byte first), ANSI."""
        n = min(self.data[at], size - 1)
        return self.data[at + 1 : at + 1 + n].decode("cp1252", "replace")

    def wide(self, at: int, chars: int) -> str:
        """A NUL-terminated UTF-16LE string of at most ``chars`` code units."""
        raw = self.data[at : at + 2 * chars]
        end = next((i for i in range(0, len(raw), 2) if raw[i : i + 2] == b"\0\0"), len(raw))
        return raw[:end].decode("utf-16-le", "replace")

    def error(self, message: str, at: int = 0) -> MatchFileError:
        return _fail(f"temp.xg record {self.number}: {message}", self.offset + at)


# ---- the container ------------------------------------------------------------------


def _inflate(blob: bytes, where: int, what: str, most: int) -> bytes:
    """``blob`` inflated, never more than ``most`` bytes of it (more is a size mismatch)."""
    try:
        d = zlib.decompressobj()
        out = d.decompress(blob, most + 1)
        if len(out) <= most:
            out += d.flush(most + 1 - len(out))
    except zlib.error as e:
        raise _fail(f"{what}: bad zlib data ({e})", where) from None
    if len(out) > most:
        raise _fail(f"{what}: inflates to more than {most} bytes", where)
    if not d.eof:
        raise _fail(f"{what}: the zlib stream is truncated", where)
    return out


def _archive(data: bytes, limits: Limits = DEFAULT_LIMITS) -> dict[str, bytes]:
    """The entries of the zlib archive after the RGMH header that the reader uses, CRCs checked.

    Each entry's declared size is checked against the caps before it is inflated, and it is
    inflated to at most that size: a zip bomb costs no more than the caps allow.
    """
    if len(data) < 4 or data[:4] != _MAGIC:
        raise _fail(f"not an eXtreme Gammon file: starts with {data[:4]!r}, not {_MAGIC!r}")
    if len(data) < _HEADER_SIZE + _ARCHIVE_TAIL:
        raise _fail(f"truncated: {len(data)} bytes, shorter than the header and archive index", len(data))
    version, header_size = struct.unpack_from("<ii", data, 4)
    if version != 1 or header_size != _HEADER_SIZE:
        raise _fail(f"unknown header version {version} / size {header_size}", 4)
    end = len(data) - _ARCHIVE_TAIL
    crc, count, _, reg_size, arc_size, compressed = struct.unpack_from("<Iiiiii", data, end)
    reg_start = end - reg_size
    start = reg_start - arc_size
    if not (count > 0 and reg_size > 0 and arc_size >= 0 and start >= _HEADER_SIZE):
        raise _fail("the archive index does not fit the file (truncated?)", end)
    check_count("xg_max_entries", count, limits, "archive entries")
    if zlib.crc32(data[start:end]) != crc:
        raise _fail("archive CRC mismatch: the file is corrupt or truncated", start)
    registry = data[reg_start:end]
    if compressed:
        registry = _inflate(registry, reg_start, "archive index", count * _FILE_ENTRY)
    if len(registry) < count * _FILE_ENTRY:
        raise _fail("the archive index is too short", reg_start)
    files: dict[str, bytes] = {}
    total = 0
    for i in range(count):
        e = registry[i * _FILE_ENTRY : (i + 1) * _FILE_ENTRY]
        name = e[1 : 1 + min(e[0], 255)].decode("cp1252", "replace")
        size, csize, at, fcrc = struct.unpack_from("<iiiI", e, 512)
        stored = e[528] != 0
        lo, hi = start + at, start + at + csize
        if not (at >= 0 and csize >= 0 and hi <= reg_start and size >= 0):
            raise _fail(f"archive entry {name!r} lies outside the archive", reg_start)
        if name not in _READ or name in files:
            continue
        if size > limits.xg_max_entry_bytes:
            raise FileTooLargeError(
                "xg_max_entry_bytes", limits.xg_max_entry_bytes, f"archive entry {name!r} holds {size} bytes"
            )
        total += size
        if total > limits.xg_max_total_bytes:
            raise FileTooLargeError(
                "xg_max_total_bytes", limits.xg_max_total_bytes, f"the archive entries hold {total} bytes"
            )
        body = data[lo:hi] if stored else _inflate(data[lo:hi], lo, name, size)
        if len(body) != size or zlib.crc32(body) != fcrc:
            raise _fail(f"archive entry {name!r}: size or CRC mismatch", lo)
        files[name] = body
    return files


def _comments(xgc: bytes) -> list[str]:
    """temp.xgc: one RTF text per line, line breaks inside written as 0x01 0x02."""
    text = xgc.decode("cp1252", "replace")
    lines = text.split("\r\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [c.replace("\x01\x02", "\n") for c in lines]


# ---- records to a match -------------------------------------------------------------


def _date(days: float) -> datetime | None:
    """A Delphi TDateTime (days since 1899-12-30)."""
    try:
        return datetime(1899, 12, 30) + timedelta(days=days) if days > 0 else None
    except (OverflowError, ValueError):
        return None


def _match_header(r: _Rec, record: MatchRecord, comments: list[str]) -> None:
    version = r.i32(552)[0]
    length, variation = r.i32(92, 2)
    if not 0 <= variation < len(_VARIATIONS):
        raise r.error(f"unknown variation {variation}", 96)
    if variation != 0:
        raise r.error(f"{_VARIATIONS[variation]} is not supported, only Backgammon", 96)
    if length == _MONEY:
        length = 0
    if not 0 <= length <= 999:
        raise r.error(f"match length {length} out of range", 92)
    record.length = length
    crawford, jacoby, beaver, _ = r.data[100:104]
    names = (r.short(9, 41), r.short(50, 41))
    event, location, round_ = r.short(136, 129), r.short(283, 129), r.short(417, 129)
    transcriber = ""
    if version >= 24:
        names = (r.wide(622 + 258, 129), r.wide(622 + 516, 129))
        event, location, round_ = r.wide(622, 129), r.wide(622 + 774, 129), r.wide(622 + 1032, 129)
    if version >= 30:
        transcriber = r.wide(1960, 129)
    record.players = names
    tags = record.tags
    if location:
        tags["Site"] = location
    tags["Match ID"] = str(r.i32(268)[0])
    if event:
        tags["Event"] = event
    if round_:
        tags["Round"] = round_
    tags["Player 1"], tags["Player 2"] = names
    elo, exp = (r.f64(104), r.f64(112)), r.i32(120, 2)
    tags["Player 1 Elo"], tags["Player 2 Elo"] = (f"{elo[i]:.2f}/{exp[i]}" for i in (0, 1))
    when = _date(r.f64(128))
    if when is not None:
        tags["EventDate"], tags["EventTime"] = when.strftime("%Y.%m.%d"), when.strftime("%H.%M")
    tags["Variation"] = _VARIATIONS[variation]
    if length:
        tags["Crawford"] = "On" if crawford else "Off"
    else:
        tags["Jacoby"], tags["Beaver"] = ("On" if jacoby else "Off"), ("On" if beaver else "Off")
        # untested: no money .xg in the corpus; XG has no raccoons
        record.options = SessionOptions(jacoby=bool(jacoby), beaver=bool(beaver))
    if version >= 8 and 0 <= (limit := r.i32(612)[0]) <= 30:
        tags["CubeLimit"] = str(2**limit)
    if transcriber:
        tags["Transcriber"] = transcriber
    tags["XG Version"] = str(version)
    for at in (576, 580):  # match comment header / footer
        if 0 <= (i := r.i32(at)[0]) < len(comments):
            record.comments.append(comments[i])


def _player(r: _Rec, at: int) -> int:
    p = r.i32(at)[0]
    if p not in (1, -1):
        raise r.error(f"player {p} is neither 1 nor -1", at)
    return 0 if p == 1 else 1


def _xg_position(cells: tuple[int, ...]) -> Position | None:
    """XG's 26 cells seen from one side (its checkers positive, [25] its bar, [0] the other's bar)."""
    mine = [max(c, 0) for c in cells[1:25]] + [max(cells[25], 0)]
    theirs = [max(-cells[24 - j], 0) for j in range(24)] + [max(-cells[0], 0)]
    try:
        return Position(mine, theirs)
    except PulvezarError:
        return None


def _after(position: Position, steps: tuple[int, ...]) -> Position | None:
    """The position after XG's (from, to) pairs: 0-based points, 24 = bar, negative = off."""
    mine, theirs = list(position.mine), list(position.theirs)
    for k in range(0, len(steps) - 1, 2):
        src, dst = steps[k], steps[k + 1]
        if src < 0 or src == dst == 0:  # the end of the list (older files pad with zeros)
            break
        if not (src <= 24 and dst < src and mine[src] > 0):
            return None
        mine[src] -= 1
        if dst >= 0:
            mine[dst] += 1
            if theirs[23 - dst] == 1:
                theirs[23 - dst] = 0
                theirs[24] += 1
    try:
        return Position(mine, theirs)
    except PulvezarError:
        return None


def _fmt(x: float) -> str:
    return f"{x:.6f}"


def _analysed(props: dict[str, list[str]], key: str, value: float) -> None:
    if value != _NOT_ANALYSED and math.isfinite(value):
        props[key] = [_fmt(value)]


def _comment(props: dict[str, list[str]], index: int, comments: list[str]) -> None:
    if 0 <= index < len(comments):
        props["comment"] = [comments[index]]


def _cube_props(r: _Rec, comments: list[str]) -> dict[str, list[str]]:
    props: dict[str, list[str]] = {}
    _analysed(props, "xg_cube_error", r.f64(200))
    _analysed(props, "xg_take_error", r.f64(216))
    if r.i32(64 + 28)[0] > 0:  # the double analysis has a level
        equities = struct.unpack_from("<3f", r.data, 64 + 88)  # no double, double/take, double/drop
        props["xg_cube_equities"] = [_fmt(e) for e in equities]
    _comment(props, r.i32(292)[0], comments)
    return props


def _move_props(r: _Rec, plays: LegalPlays, start: Position, comments: list[str]) -> dict[str, list[str]]:
    props: dict[str, list[str]] = {"xg_moves": [" ".join(map(str, r.i32(68, 8)))]}
    _analysed(props, "xg_error", r.f64(2312))
    _analysed(props, "xg_luck", r.f64(2320))
    n = min(r.i32(120)[0], r.i32(124 + 64)[0])  # NMoveEval, the engine's NMoves
    candidates = []
    for k in range(max(0, min(n, 32))):
        after = _after(start, r.i8(124 + 900 + 8 * k, 8))
        try:
            notation = plays[plays.index_of(after)].notation if after is not None else "?"
        except ValueError:
            notation = "?"
        evals = r.f32(124 + 1284 + 28 * k, 7)
        candidates.append(f"{notation or '-'}: {' '.join(f'{x:.4f}' for x in evals)}")
    if candidates:
        props["xg_candidates"] = candidates
    _comment(props, r.i32(2524)[0], comments)
    return props


class _Cut(Exception):
    """Internal: stop replaying this game."""


def _replay(
    record: MatchRecord, rec: GameRecord, body: list[_Rec], end: _Rec | None, comments: list[str]
) -> None:
    """Replay one game's cube and move records into ``rec.actions``; cut at the first bad one."""
    game = record.new_game(rec)
    acts = rec.actions
    pending: dict[str, list[str]] = {}  # analysis of a no-double, kept on the roll that follows
    unplayed: tuple[int, int] | None = None  # dice rolled after the last cube record, never played

    def act(action: Action) -> None:
        apply_action(game, action)
        acts.append(action)

    for r in body:
        if rec.cut_at is not None:
            break
        try:
            if game.phase is Phase.OVER:
                raise _Cut("a record after the end of the game")
            p = _player(r, 12 if r.kind == _CUBE else 64)
            if r.kind == _CUBE:
                unplayed = None
                props = _cube_props(r, comments)
                double, answer = r.i32(16, 2)
                if double != 1:
                    pending = props
                    text = r.short(208, 3)
                    if len(text) == 2 and all(c in "123456" for c in text):
                        unplayed = (int(text[0]), int(text[1]))
                    continue
                if game.phase is not Phase.ROLL or game.turn != p:
                    raise _Cut("a double out of turn")
                act(Action(p, "double", value=2 * game.cube_value, props=props))
                if answer in (0, 1):
                    act(Action(1 - p, "take" if answer == 1 else "drop"))
                elif answer == 2:
                    raise _Cut("a beaver: how XG records the answer to one is not known (no sample file)")
                continue
            dice = r.i32(100, 2)
            if not all(1 <= d <= 6 for d in dice):
                raise _Cut(f"dice {dice} out of range")
            if game.phase is Phase.OPENING and dice[0] == dice[1]:
                raise _Cut("a double as the opening roll")
            if game.phase is not Phase.OPENING and (game.phase is not Phase.ROLL or game.turn != p):
                raise _Cut("a roll out of turn")
            unplayed = None
            start = game.position
            roll = Action(p, "roll", dice=(dice[0], dice[1]), props=pending)
            pending = {}
            apply_action(game, roll)
            acts.append(roll)
            if game.turn != p:
                raise _Cut("the opening roll's winner is not the player who moves")
            xg_start = _xg_position(r.i8(9, 26))  # XG's player 1 (our 0) positive
            if xg_start is not None and p == 1:
                xg_start = xg_start.swap()
            if xg_start is not None and any(r.i8(9, 26)) and xg_start != start:
                raise _Cut(f"the file's position {xg_start.position_id} differs from the replay's")
            assert game.dice is not None
            plays = game.rules.legal_plays(start, game.dice)
            steps = r.i32(68, 8)
            if not any(steps) and plays[0].moves:  # rolled, never played: a resignation follows
                roll.props.update(_move_props(r, plays, start, comments))
                continue
            after = _after(start, steps)
            try:
                play = plays[plays.index_of(after)] if after is not None else None
            except ValueError:
                play = None
            if play is None:
                raise _Cut(f"the move {r.i32(68, 8)} is not a legal play")
            act(Action(p, "play", notation=play.notation, props=_move_props(r, plays, start, comments)))
        except _Cut as e:
            rec.cut_at = f"record {r.number}: {e}"
        except PulvezarError as e:
            rec.cut_at = f"record {r.number}: {e}"
    if end is None:
        rec.notes.append("the game has no footer: it is still in progress")
        return
    winner = _player(end, 24)
    points, how = end.i32(28, 2)
    rec.winner, rec.points = winner, points
    rec.props["xg_termination"] = [str(how)]
    clamped = False
    if rec.cut_at is None and game.phase is not Phase.OVER:
        if how >= 1000:
            rec.notes.append(f"record {end.number}: the game was settled for {points} points")
        elif how >= 100:
            clamped = _resign(game, rec, 1 - winner, points, unplayed, end.number)
        else:
            rec.notes.append(f"record {end.number}: the file ends the game (code {how}), the replay does not")
    if game.phase is Phase.OVER:
        rec.winner, rec.points = game.winner, game.points
        if game.winner != winner:
            rec.notes.append(f"the file says player {winner} wins, the replay player {game.winner}")
        elif points not in (game.points, rec.credited(record.length)) and not clamped:
            rec.notes.append(f"the file says {points} points, the replay {game.points}")
    acts.append(Action(winner, "win", value=points))


def _resign(
    game: Game, rec: GameRecord, loser: int, points: int, unplayed: tuple[int, int] | None, number: int
) -> bool:
    """``loser`` resigns (after the roll XG recorded but nobody played) and the winner accepts.

    The level is the lowest whose points reach the file's figure, as for ``.mat`` files;
    True when the rules allow less than that figure.
    """
    try:
        if game.phase is Phase.ROLL and unplayed is not None:
            roll = Action(game.turn, "roll", dice=unplayed)
            apply_action(game, roll)
            rec.actions.append(roll)
        levels = game.resignation_levels(loser)
        wanted = max(1, -(-points // game.cube_value))
        level = min(wanted, levels[-1])
        if wanted > level:
            rec.notes.append(
                f"record {number}: the file's {points} points on a {game.cube_value}-cube "
                f"are more than a level-{level} resignation, the highest the rules allow here"
            )
        for action in (Action(loser, "resign", value=level), Action(1 - loser, "accept")):
            apply_action(game, action)
            rec.actions.append(action)
    except PulvezarError as e:
        rec.cut_at = f"record {number}: {e}"
        return False
    return wanted > level


def _missing(r: _Rec, number: int, score: tuple[int, int]) -> GameRecord:
    """A game XG knows only by its result."""
    winner, points = r.i32(20, 2)
    rec = GameRecord(number=number, score=score, winner=0 if winner == 1 else 1, points=points)
    rec.notes.append(f"record {r.number}: the game is missing from the file; only its result is known")
    return rec


def read_xg(data: bytes, *, limits: Limits | None = None) -> MatchRecord:
    """Read an eXtreme Gammon ``.xg`` match file.

    Raises :class:`MatchFileError` when the bytes are not a readable ``.xg``
    file (wrong magic, truncation, bad zlib data, CRC mismatch, unknown
    records), its :class:`~pulvezar.formats.limits.FileTooLargeError` beyond a
    cap of ``limits`` (input bytes, archive entries, inflated bytes, games,
    records per game).  Games are replayed through the match model and cut
    (``cut_at``) at the first record the rules do not allow.
    """
    limits = limits or DEFAULT_LIMITS
    if not isinstance(data, bytes | bytearray | memoryview):
        raise _fail(f"an .xg file is bytes, not {type(data).__name__}")
    check_bytes(len(data), limits)
    try:
        return _read(bytes(data), limits)
    except MatchFileError:
        raise
    except (struct.error, IndexError, ValueError, OverflowError, UnicodeError) as e:  # pragma: no cover
        raise _fail(f"corrupt .xg data: {e}") from None


def _read(data: bytes, limits: Limits) -> MatchRecord:
    files = _archive(data, limits)
    xg = files.get("temp.xg")
    if xg is None:
        raise _fail(f"the archive has no temp.xg (it holds {sorted(files)})")
    if not xg or len(xg) % _RECORD:
        raise _fail(f"temp.xg is {len(xg)} bytes, not a whole number of {_RECORD}-byte records")
    comments = _comments(files.get("temp.xgc", b""))
    recs = [_Rec(xg[i : i + _RECORD], i) for i in range(0, len(xg), _RECORD)]
    if recs[0].kind != _MATCH:
        raise recs[0].error("the first record is not the match header", 8)
    record = MatchRecord()
    _match_header(recs[0], record, comments)
    crawford_rule = record.tags.get("Crawford") == "On"
    current: tuple[GameRecord, list[_Rec]] | None = None

    def finish(end: _Rec | None) -> None:
        nonlocal current
        if current is not None:
            rec, body = current
            _replay(record, rec, body, end, comments)
            record.games.append(rec)
        current = None

    for r in recs[1:]:
        kind = r.kind
        if kind == _GAME:
            finish(None)
            s0, s1 = r.i32(12, 2)
            if not (0 <= s0 <= 99999 and 0 <= s1 <= 99999):
                raise r.error(f"scores {s0}-{s1} out of range", 12)
            check_count("max_games", len(record.games) + 1, limits, "games", line=1)
            rec = GameRecord(number=r.i32(48)[0], score=(s0, s1))
            rec.crawford = bool(r.data[20]) and crawford_rule and record.length > 0
            for key, at in (("comment_header", 56), ("comment_footer", 60)):
                if 0 <= (i := r.i32(at)[0]) < len(comments):
                    rec.props[key] = [comments[i]]
            current = (rec, [])
        elif kind in (_CUBE, _MOVE):
            if current is None:
                raise r.error("a cube or move record outside a game", 8)
            check_count("max_actions", len(current[1]) + 1, limits, "records in a game")
            current[1].append(r)
        elif kind == _GAME_END:
            if current is None:
                raise r.error("a game footer outside a game", 8)
            finish(r)
        elif kind == _MATCH_END:
            finish(None)
            record.tags["XG Final Score"] = "{}-{}".format(*r.i32(12, 2))
        elif kind == _MISSING:
            finish(None)
            prev = record.games[-1] if record.games else None
            score = (0, 0) if prev is None else prev.score
            if prev is not None and prev.winner is not None:
                s = list(prev.score)
                s[prev.winner] += prev.points
                score = (s[0], s[1])
            record.games.append(_missing(r, len(record.games) + 1, score))
        else:
            raise r.error(f"unknown record type {kind}", 8)
    finish(None)
    return record
