"""OGXM match files (``.ogxm``) and streams (``.ogxms``, ``.ogxms.zst``), through the ``ogxm`` codec.

OGXM is the match format of OpenGammon and HedgeHog.  Every rule of the
format runs in its reference codec, the PyPI package ``ogxm`` (the
``interop`` extra): this module maps pulvezar's :class:`MatchRecord` to the
codec's JSON projection and back, and never reads or writes the bytes
itself.  The package is imported when used, so a build without it raises
:class:`OgxmUnavailableError`.

Mapping (as the codec has it, see :mod:`pulvezar.rules.ogid`): OGXM's White
(``player_white``, a ply's ``color`` 1, a game's ``winner`` 0, an OGID's first
field) is pulvezar's player ``0``; Black (``color`` 0, ``winner`` 1) is player
``1``.  A step's ``from`` is an absolute pip (Black's numbering: White's point
``p`` is ``25 - p``, White's bar 0, Black's bar 25) and ``pips`` the die it uses.
Each ply is one of: a roll and its play (``action_id`` 0-20, the roll's
index), a double (21), take (22), drop (23), a resignation the winner
accepted (27, 28 when it ends the match) and the end of a game (24, 26).

Lost on the way out (and so not read back): the order the dice were rolled
in (OGXM keeps the pair low die first), a roll that was never played
before a resignation, a resignation that was rejected, ``props`` (analysis
and comments), tags other than ``Event``.  Refused with
:class:`OgxmUnsupportedError`: Tavla (OGXM has no such variant), games that
start from a set-up position, beavers and raccoons.

Reading replays every ply through the match model, like the other readers:
a game is cut (:attr:`GameRecord.cut_at`) at the first ply the rules do not
allow, or where the codec's own replay failed.

Streams: :func:`iter_ogxm_stream` yields each member as it is read: a match,
a member skipped with its reason, and last, where a truncated stream stopped.
The caps of :mod:`pulvezar.formats.limits` (``ogxm_*``) bound the input, the
bytes it decompresses to and the matches it holds.

Uploads: an upload's bytes go to :func:`read_ogxm` (one match) or to
:func:`read_ogxm_stream`/:func:`iter_ogxm_stream` (a stream, bytes or a binary
file object); :func:`is_ogxm` and :func:`is_zstd` tell them apart by content.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Literal

from pulvezar.errors import PulvezarError
from pulvezar.formats.document import Cut, fail, int_field, move_checker, position_after, str_field
from pulvezar.formats.limits import DEFAULT_LIMITS, FileTooLargeError, Limits, check_bytes, check_count
from pulvezar.formats.record import Action, GameRecord, MatchRecord, apply_action
from pulvezar.match.game import Game, Phase, SessionOptions
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play

__all__ = [
    "OgxmStream",
    "OgxmUnavailableError",
    "OgxmUnsupportedError",
    "StreamEntry",
    "from_ogxm_json",
    "is_ogxm",
    "is_zstd",
    "iter_ogxm_stream",
    "ply_refs",
    "read_ogxm",
    "read_ogxm_stream",
    "to_ogxm_json",
    "write_ogxm",
    "write_ogxm_stream",
]

DOUBLE, TAKE, DROP, GAME_OVER, MATCH_OVER, RESIGN_GAME, RESIGN_MATCH = 21, 22, 23, 24, 26, 27, 28
_ACTION_NAMES = {
    25: "a game-ending action",
    29: "a terminal action",
    30: "a play without dice",
    31: "set position",
}
_DICE = [(a, b) for a in range(1, 7) for b in range(a, 7)]  # action_id 0..20 is the index of (low, high)
_RESIGN_VALUES = {"single": 1, "gammon": 2, "backgammon": 3}
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_CHUNK = 1 << 16


class OgxmUnavailableError(PulvezarError):
    """The ``ogxm`` package (the ``interop`` extra) is not installed."""


class OgxmUnsupportedError(PulvezarError):
    """A match OGXM cannot carry (Tavla, a set-up start, a beaver), or a document the codec refuses."""


def _codec() -> Any:
    try:
        import ogxm  # type: ignore[import-untyped]  # no stubs; pyproject could list it with gnubg_nn
    except ImportError:
        raise OgxmUnavailableError(
            "OGXM needs the ogxm package (pip install 'pulvezar[interop]')", field="format"
        ) from None
    return ogxm


_fail = fail


# ---- writing ---------------------------------------------------------------------------------------


def _color(player: int) -> int:
    """A player's OGXM ``color`` (White, player 0, is 1), and the player of a ``color``."""
    return 1 - player


def _steps(play: Play, player: int) -> list[dict[str, int]]:
    """A play's checker moves as OGXM steps: ``from`` in white's numbering, ``pips`` the die used."""
    a, b = play.dice
    pool = [a] * 4 if a == b else [a, b]
    for m in play.moves:  # the dice of the moves that land on the board
        if m.dst > 0:
            pool.remove(m.src - m.dst)
    steps = []
    for m in play.moves:
        if m.dst > 0:
            pips = m.src - m.dst
        else:  # borne off: the smallest die left that reaches
            pips = min(d for d in pool if d >= m.src)
            pool.remove(pips)
        steps.append({"from": 25 - m.src if player == 0 else m.src, "pips": pips})
    return steps


def _refuse(record: MatchRecord) -> None:
    if record.rules.variant != "international":
        raise OgxmUnsupportedError("OGXM cannot carry Tavla matches (it has no Tavla variant)", field="rules")
    for rec in record.games:
        if rec.setup is not None:
            raise OgxmUnsupportedError(
                f"game {rec.number} starts from a set-up position, which this writer does not carry",
                field="setup",
            )
        for a in rec.actions:
            if a.kind in ("beaver", "raccoon"):
                raise OgxmUnsupportedError(
                    f"game {rec.number} has a {a.kind}, which this writer cannot express in OGXM",
                    field="cube",
                )


def _game_plies(record: MatchRecord, rec: GameRecord) -> list[dict[str, Any]]:
    return [ply for ply, _ in _indexed_plies(record, rec)]


def _indexed_plies(record: MatchRecord, rec: GameRecord) -> list[tuple[dict[str, Any], tuple[int, ...]]]:
    """The game's OGXM plies, each with the indices into ``rec.actions`` it carries (a roll and its
    play, a resignation and its acceptance; none for the end of a game)."""
    game = record.new_game(rec)
    plies: list[dict[str, Any]] = []
    carried: list[tuple[int, ...]] = []
    last_roll = -1
    actions = rec.actions
    for i, action in enumerate(actions):
        kind, p = action.kind, action.player
        if kind == "win":
            break
        if rec.cut_at is not None and game.phase is Phase.OVER:
            break
        if kind == "roll":
            last_roll = i
        if kind == "play":
            assert game.dice is not None
            play = game.rules.legal_plays(game.position, game.dice).find(action.notation or "")
            lo, hi = sorted(game.dice)
            plies.append(
                {
                    "color": _color(game.turn),
                    "action_id": _DICE.index((lo, hi)),
                    "d1": lo,
                    "d2": hi,
                    "moves": _steps(play, game.turn),
                }
            )
            carried.append((last_roll, i) if last_roll >= 0 else (i,))
        elif kind in ("double", "take", "drop"):
            cube = {"double": DOUBLE, "take": TAKE, "drop": DROP}[kind]
            plies.append({"color": _color(p), "action_id": cube})
            carried.append((i,))
        elif kind == "resign":
            answer = actions[i + 1].kind if i + 1 < len(actions) else None
            if answer == "accept":
                ends = (
                    record.length > 0
                    and game.context.score[1 - p] + min(game.cube_value * action.value, record.length)
                    >= record.length
                )
                plies.append(
                    {
                        "color": _color(p),
                        "action_id": RESIGN_MATCH if ends else RESIGN_GAME,
                        "resign_value": action.value,
                    }
                )
                carried.append((i, i + 1))
        apply_action(game, action)
    if rec.winner in (0, 1) and not (plies and plies[-1]["action_id"] in (RESIGN_GAME, RESIGN_MATCH)):
        ends = record.length > 0 and rec.score[rec.winner] + rec.credited(record.length) >= record.length
        plies.append({"action_id": MATCH_OVER if ends else GAME_OVER})
        carried.append(())
    return list(zip(plies, carried, strict=True))


def ply_refs(record: MatchRecord) -> dict[tuple[int, int], int]:
    """``(game index, action index)`` -> the OGXM ``ply_ref`` (the match-wide ply ordinal) of the ply
    :func:`write_ogxm` writes that action in; actions OGXM does not keep (a roll never played, a
    rejected resignation, the ``win`` line) have none."""
    _refuse(record)
    refs: dict[tuple[int, int], int] = {}
    n = 0
    for gi, rec in enumerate(record.games):
        for _, actions in _indexed_plies(record, rec):
            for ai in actions:
                refs[(gi, ai)] = n
            n += 1
    return refs


def to_ogxm_json(record: MatchRecord) -> dict[str, Any]:
    """The match as an OGXM JSON document (the codec's projection, without the OGIDs it replays).

    Raises :class:`OgxmUnsupportedError` for a match OGXM cannot carry.
    """
    _refuse(record)
    doc: dict[str, Any] = {
        "match_length": record.length,
        "player_white": record.players[0],
        "player_black": record.players[1],
        "crawford": bool(record.length) and record.tags.get("Crawford", "On").lower() != "off",
        "jacoby": record.options.jacoby,
        "checksum": "crc32",
        "games": [],
    }
    if record.tags.get("Event"):
        doc["event"] = record.tags["Event"]
    if record.games and record.games[0].score != (0, 0):  # a match file that starts part way
        doc["white_score_start"], doc["black_score_start"] = record.games[0].score
    for index, rec in enumerate(record.games):
        game: dict[str, Any] = {"game_index": index, "is_crawford": rec.crawford}
        if rec.winner in (0, 1):
            game["winner"], game["points_won"] = rec.winner, rec.points
        game["plies"] = _game_plies(record, rec)
        doc["games"].append(game)
    return doc


def write_ogxm(record: MatchRecord) -> bytes:
    """The match as OGXM v2 bytes (with a CRC-32 checksum, so it can be a stream member).

    Raises :class:`OgxmUnsupportedError` for a match OGXM cannot carry or a
    document the codec's v2 rules refuse (the rule named).
    """
    return encode(to_ogxm_json(record), "match", "format")


def encode(doc: dict[str, Any], what: str, field: str) -> bytes:
    """An OGXM JSON document as v2 bytes through the codec; :class:`OgxmUnsupportedError` naming
    ``field`` where the codec's v2 rules refuse it (the rule named) or its writer fails."""
    codec = _codec()
    rule = codec.v2_problem(doc)
    if rule is not None:
        raise OgxmUnsupportedError(f"the OGXM codec refuses this {what} (rule {rule!r})", field=field)
    try:
        return bytes(codec.json_to_binary(doc))
    except codec.OgxmError as e:
        raise OgxmUnsupportedError(f"the OGXM codec refuses this {what}: {e}", field=field) from None


def write_ogxm_stream(records: Iterable[MatchRecord], out: BinaryIO) -> int:
    """Append each match to the stream ``out`` as one member; the number written."""
    codec = _codec()
    writer = codec.StreamWriter(out)
    n = 0
    for record in records:
        writer.write(write_ogxm(record))
        n += 1
    return n


# ---- reading ---------------------------------------------------------------------------------------


def _int(obj: dict[str, Any], key: str, lo: int, hi: int, default: int | None = None) -> int:
    return int_field("OGXM", obj, key, lo, hi, default)


def _str(obj: dict[str, Any], key: str) -> str:
    return str_field("OGXM", obj, key)


_Cut = Cut


def _after(position: Position, steps: Any, player: int) -> tuple[list[int], list[int]]:
    """The mover's points (``mine``, ``theirs``) after OGXM steps (raises :class:`_Cut` for a step that
    cannot be made); not yet checked to be a position."""
    if not isinstance(steps, list) or len(steps) > 4:
        raise _Cut("the steps are not a list of at most four moves")
    mine, theirs = list(position.mine), list(position.theirs)
    for s in steps:
        if not isinstance(s, dict):
            raise _Cut("a step is not an object")
        frm, pips = s.get("from"), s.get("pips")
        if not isinstance(frm, int) or not isinstance(pips, int) or not (0 <= frm <= 25 and 1 <= pips <= 6):
            raise _Cut(f"step {s!r} is out of range")
        src = 25 - frm if player == 0 else frm
        move_checker(mine, theirs, src, src - pips)
    return mine, theirs


def _play(game: Game, steps: Any, player: int, dice: tuple[int, int]) -> str:
    """Play the legal play that OGXM ``steps`` make in ``game``; returns its notation (raises
    :class:`_Cut`).  The play is found by its resulting board and played as a position: its notation is
    formatted once (by the game) and never parsed back."""
    assert game.dice is not None
    plays = game.rules.legal_plays(game.position, game.dice)
    mine, theirs = _after(game.position, steps, player)
    try:
        chosen = plays.boards().index(bytes(mine + theirs))
    except ValueError:
        position_after(mine, theirs, "steps")  # a Cut when the steps lead to no position at all
        raise _Cut(f"the steps {steps!r} are not a legal play of {dice[0]}{dice[1]}") from None
    try:
        game.play(plays[chosen].position)
    except PulvezarError as e:
        raise _Cut(str(e)) from None
    # the game's own record of the play (a game's end follows it as an event of its own)
    notation: str = next(e[2] for e in reversed(game.events) if e[0] == "play")
    return notation


def _ply(record: MatchRecord, game: Game, ply: Any, acts: list[Action]) -> None:
    """Append one ply's actions to ``acts``, applying them to ``game`` (raises :class:`_Cut`)."""

    def act(action: Action) -> None:
        try:
            apply_action(game, action)
        except PulvezarError as e:
            raise _Cut(str(e)) from None
        acts.append(action)

    if not isinstance(ply, dict):
        raise _Cut("a ply is not an object")
    aid = ply.get("action_id")
    color = ply.get("color")
    player = _color(color) if color in (0, 1) else None
    if not isinstance(aid, int) or isinstance(aid, bool):
        raise _Cut(f"action_id {aid!r} is not a number")
    if 0 <= aid <= 20:
        if player is None:
            raise _Cut("a roll without a colour")
        dice = _DICE[aid]
        d1, d2 = ply.get("d1", dice[0]), ply.get("d2", dice[1])
        if not (isinstance(d1, int) and isinstance(d2, int)) or sorted((d1, d2)) != list(dice):
            raise _Cut(f"dice {d1}{d2} are not the roll of action {aid}")
        if game.phase is not Phase.OPENING and (game.phase is not Phase.ROLL or game.turn != player):
            raise _Cut("a roll out of turn")
        act(Action(player, "roll", dice=dice if player == 0 else (dice[1], dice[0])))
        if game.turn != player:
            raise _Cut("the opening roll's winner is not the player who moves")
        acts.append(Action(player, "play", notation=_play(game, ply.get("moves", []), player, dice)))
    elif aid in (DOUBLE, TAKE, DROP):
        if player is None:
            raise _Cut("a cube action without a colour")
        if aid == DOUBLE:
            act(Action(player, "double", value=2 * game.cube_value))
        else:
            act(Action(player, "take" if aid == TAKE else "drop"))
    elif aid in (RESIGN_GAME, RESIGN_MATCH):
        value = ply.get("resign_value")
        level = _RESIGN_VALUES.get(value, value) if isinstance(value, str) else value
        if level not in (1, 2, 3):
            raise _Cut(f"resign_value {value!r} is not single, gammon or backgammon")
        winner = _resign_winner(ply, player)
        if winner is None:
            raise _Cut("a resignation without a colour")
        act(Action(1 - winner, "resign", value=level))
        act(Action(winner, "accept"))
    elif aid in (GAME_OVER, MATCH_OVER):
        pass
    else:
        raise _Cut(f"action {aid} ({_ACTION_NAMES.get(aid, 'unknown')}) is not supported")


def _resign_winner(ply: dict[str, Any], player: int | None) -> int | None:
    """A resignation's winner: the game's (``_winner``, set by :func:`_game`), else the other colour."""
    w = ply.get("_winner")
    if w in (0, 1):
        return int(w)
    return None if player is None else 1 - player


def _game(record: MatchRecord, g: Any, number: int, score: tuple[int, int], limits: Limits) -> GameRecord:
    if not isinstance(g, dict):
        raise _fail(f"game {number} is not an object")
    rec = GameRecord(number=number, score=score)
    rec.crawford = bool(g.get("is_crawford")) and record.length > 1  # (the codec flags a 1-point match's)
    plies = g.get("plies", [])
    if not isinstance(plies, list):
        raise _fail(f"game {number}: plies is not a list")
    check_count("max_actions", len(plies), limits, "plies in a game")
    winner = g.get("winner")
    winner = winner if winner in (0, 1) else None
    failed = g.get("replay_failed_at")
    game = record.new_game(rec)
    for k, ply in enumerate(plies):
        if isinstance(failed, int) and k >= failed:
            rec.cut_at = f"ply {k + 1}: the OGXM codec's replay failed here"
            break
        if isinstance(ply, dict) and winner is not None:
            ply = {**ply, "_winner": winner}
        try:
            if game.phase is Phase.OVER and not (isinstance(ply, dict) and ply.get("action_id") in (24, 26)):
                raise _Cut("a ply after the end of the game")
            _ply(record, game, ply, rec.actions)
        except _Cut as e:
            rec.cut_at = f"ply {k + 1}: {e}"
            break
    if game.phase is Phase.OVER:
        rec.winner, rec.points = game.winner, game.points
        points = g.get("points_won")
        if winner != game.winner or (isinstance(points, int) and points != game.points):
            rec.notes.append(f"the file says player {winner} wins {points}, the replay player {game.winner}")
    elif winner is not None:
        rec.winner, rec.points = winner, _int(g, "points_won", 0, 1 << 20, 0)
    if rec.winner is not None:
        rec.actions.append(Action(rec.winner, "win", value=rec.points))
    return rec


def from_ogxm_json(doc: Any, *, limits: Limits | None = None) -> MatchRecord:
    """A match from the codec's JSON projection, every game replayed (cut at a ply it cannot follow)."""
    limits = limits or DEFAULT_LIMITS
    if not isinstance(doc, dict):
        raise _fail("an OGXM document is a JSON object")
    variant = doc.get("variant", "backgammon")
    if variant != "backgammon":
        raise OgxmUnsupportedError(f"OGXM variant {variant!r} is not read (only backgammon)", field="variant")
    length = _int(doc, "match_length", 0, 99_999, 0)
    record = MatchRecord(length=length, players=(_str(doc, "player_white"), _str(doc, "player_black")))
    if _str(doc, "event"):
        record.tags["Event"] = _str(doc, "event")
    if length:
        record.tags["Crawford"] = "On" if doc.get("crawford", True) else "Off"
    elif doc.get("jacoby"):
        record.options = SessionOptions(jacoby=True)
    games = doc.get("games", [])
    if not isinstance(games, list):
        raise _fail("games is not a list")
    check_count("max_games", len(games), limits, "games")
    score = (_int(doc, "white_score_start", 0, 99_999, 0), _int(doc, "black_score_start", 0, 99_999, 0))
    for i, g in enumerate(games):
        rec = _game(record, g, i + 1, score, limits)
        record.games.append(rec)
        score = rec.score_after(length)
    return record


def _to_json(data: bytes) -> dict[str, Any]:
    codec = _codec()
    if not isinstance(data, bytes | bytearray | memoryview):
        raise _fail(f"an .ogxm file is bytes, not {type(data).__name__}")
    data = bytes(data)
    if not codec.is_ogxm_binary(data):
        raise _fail("not an OGXM file (no OGXM magic)")
    try:
        doc = codec.binary_to_json(data)
    except (codec.OgxmError, ValueError, UnicodeError, RecursionError) as e:
        raise _fail(f"the OGXM codec cannot read this file: {e}") from None
    if not isinstance(doc, dict):
        raise _fail("the OGXM codec returned no document")
    return doc


def read_ogxm(data: bytes, *, limits: Limits | None = None) -> MatchRecord:
    """Read one ``.ogxm`` file (raises :class:`MatchFileError`, or :class:`OgxmUnsupportedError`)."""
    limits = limits or DEFAULT_LIMITS
    check_bytes(len(data), limits)
    return from_ogxm_json(_to_json(data), limits=limits)


# ---- streams ---------------------------------------------------------------------------------------


def is_zstd(head: bytes) -> bool:
    """Whether bytes start a zstd frame (a compressed stream)."""
    return head[:4] == _ZSTD_MAGIC


def is_ogxm(head: bytes) -> bool:
    """Whether bytes start an OGXM file (or an uncompressed stream, whose first member is one)."""
    return head[:4] == b"OGXM"


class _Capped:
    """A reader that refuses to give more than ``cap`` bytes; with ``keep``, it keeps what it gave since
    :meth:`keep_from` (so a skipped range can be looked at)."""

    def __init__(self, raw: Any, cap: int, cap_name: str, *, keep: bool = False) -> None:
        self.raw, self.cap, self.cap_name, self.keep = raw, cap, cap_name, keep
        self.total = 0
        self.window = bytearray()  # the bytes given from stream offset ``base`` on
        self.base = 0

    def read(self, n: int = -1) -> bytes:
        n = _CHUNK if n is None or n < 0 else n
        data = bytes(self.raw.read(min(n, self.cap + 1 - self.total)))
        self.total += len(data)
        if self.total > self.cap:
            raise FileTooLargeError(self.cap_name, self.cap, f"the stream has more than {self.cap} bytes")
        if self.keep:
            self.window += data
        return data

    def keep_from(self, offset: int) -> None:
        if offset > self.base:
            del self.window[: offset - self.base]
            self.base = offset

    def slice(self, offset: int, length: int) -> bytes:
        start = max(offset - self.base, 0)
        return bytes(self.window[start : start + length])


@dataclass(frozen=True, slots=True)
class StreamEntry:
    """One thing read from a stream, in order.

    ``kind``: ``"match"`` (``record`` is the match; ``digest`` its OGXM match
    digest in hex), ``"skipped"`` (a member that did not read: ``reason``),
    or ``"truncated"`` (the stream ends inside a member, last).  ``offset``
    and ``length`` are in the decompressed stream.
    """

    kind: Literal["match", "skipped", "truncated"]
    index: int  # the member's number among the matches (0-based), -1 for a skipped range or the end
    offset: int
    length: int
    record: MatchRecord | None = None
    digest: str = ""
    reason: str = ""


def _open(source: bytes | BinaryIO, limits: Limits) -> _Capped:
    """The decompressed stream of ``source`` (zstd when it starts with zstd's magic), capped."""
    cap, name = limits.ogxm_max_stream_bytes, "ogxm_max_stream_bytes"
    if isinstance(source, bytes | bytearray | memoryview):
        if len(source) > cap:
            raise FileTooLargeError(name, cap, f"the stream has {len(source)} bytes")
        raw: Any = io.BytesIO(bytes(source))
    else:
        raw = _Capped(source, cap, name)
    head = raw.read(4)
    rest: Any = _Prefixed(head, raw)
    out_cap, out_name = limits.ogxm_max_decompressed_bytes, "ogxm_max_decompressed_bytes"
    if is_zstd(head):
        try:
            import zstandard
        except ImportError:
            raise OgxmUnavailableError(
                "a zstd-compressed stream needs the zstandard package (pip install 'pulvezar[interop]')",
                field="format",
            ) from None
        rest = _ZstdErrors(zstandard.ZstdDecompressor().stream_reader(rest, read_across_frames=True))
    return _Capped(rest, out_cap, out_name, keep=True)


class _Prefixed:
    """``head``, then the rest of ``raw``."""

    def __init__(self, head: bytes, raw: Any) -> None:
        self.head, self.raw = head, raw

    def read(self, n: int = -1) -> bytes:
        n = _CHUNK if n is None or n < 0 else n
        if self.head:
            out, self.head = self.head[:n], self.head[n:]
            return out
        return bytes(self.raw.read(n))


class _ZstdErrors:
    """A zstd reader whose corrupt data is a :class:`MatchFileError`."""

    def __init__(self, reader: Any) -> None:
        self.reader = reader

    def read(self, n: int = -1) -> bytes:
        try:
            return bytes(self.reader.read(n))
        except Exception as e:  # zstandard.ZstdError: the compressed data is bad
            raise _fail(f"the zstd data does not decompress: {e}") from None


def iter_ogxm_stream(source: bytes | BinaryIO, *, limits: Limits | None = None) -> Iterator[StreamEntry]:
    """Each member of an ``.ogxms`` stream (zstd-compressed or not), as it is read.

    A member that is corrupt, or that does not read as a match, is a
    ``"skipped"`` entry with its reason and reading goes on; a stream that
    ends inside a member ends with a ``"truncated"`` entry (every complete
    match came before it).  Raises :class:`FileTooLargeError` at a cap.
    """
    codec = _codec()
    limits = limits or DEFAULT_LIMITS
    reader = _open(source, limits)
    skips: list[tuple[int, int]] = []
    members = codec.iter_stream(reader, strict=False, on_skip=lambda offset, n: skips.append((offset, n)))
    pos = 0  # where the next member starts
    count = 0
    while True:
        try:
            member = next(members)
        except StopIteration:
            yield from _skipped(codec, reader, skips)
            return
        except codec.StreamTruncated as e:
            yield from _skipped(codec, reader, skips)
            yield StreamEntry(
                "truncated", -1, e.offset, e.length, reason=f"the stream ends inside a member: {e}"
            )
            return
        if skips:
            pos = skips[-1][0] + skips[-1][1]
            yield from _skipped(codec, reader, skips)
        count += 1
        check_count("ogxm_max_matches", count, limits, "matches in the stream")
        entry = _member(codec, member, count - 1, pos, limits)
        pos += len(member)
        reader.keep_from(pos)
        yield entry


def _skipped(codec: Any, reader: _Capped, skips: list[tuple[int, int]]) -> Iterator[StreamEntry]:
    for offset, length in skips:
        rule, _ = codec.verify(reader.slice(offset, length)) if length else (None, False)
        reason = f"invalid member ({rule or 'framing'})"
        yield StreamEntry("skipped", -1, offset, length, reason=reason)
    skips.clear()


def _member(codec: Any, member: bytes, index: int, offset: int, limits: Limits) -> StreamEntry:
    try:
        digest = bytes(codec.match_digest(member)).hex()
    except ValueError:
        digest = hashlib.sha256(member).hexdigest()
    try:
        record = read_ogxm(member, limits=limits)
    except PulvezarError as e:
        return StreamEntry("skipped", index, offset, len(member), digest=digest, reason=str(e))
    return StreamEntry("match", index, offset, len(member), record=record, digest=digest)


@dataclass(slots=True)
class OgxmStream:
    """A whole stream read: its entries, in order, and what they add up to."""

    entries: list[StreamEntry] = field(default_factory=list)

    @property
    def matches(self) -> list[StreamEntry]:
        return [e for e in self.entries if e.kind == "match"]

    @property
    def skipped(self) -> list[StreamEntry]:
        return [e for e in self.entries if e.kind == "skipped"]

    @property
    def truncated(self) -> StreamEntry | None:
        return next((e for e in self.entries if e.kind == "truncated"), None)

    def to_json(self) -> dict[str, Any]:
        """A summary for people and programs: each match's players, length, games and result."""
        out: list[dict[str, Any]] = []
        for e in self.entries:
            item: dict[str, Any] = {"kind": e.kind, "offset": e.offset, "length": e.length}
            if e.kind != "truncated":
                item["index"] = e.index
            if e.digest:
                item["digest"] = e.digest
            if e.reason:
                item["reason"] = e.reason
            if e.record is not None:
                r = e.record
                item.update(players=list(r.players), match_length=r.length, games=len(r.games))
                item["cut_games"] = r.cut_games
            out.append(item)
        return {"entries": out, "matches": len(self.matches), "skipped": len(self.skipped)}


def read_ogxm_stream(source: bytes | BinaryIO, *, limits: Limits | None = None) -> OgxmStream:
    """Every entry of :func:`iter_ogxm_stream`, collected."""
    return OgxmStream(list(iter_ogxm_stream(source, limits=limits)))
