"""BGBlitz's ``.bgf`` match files (input): a JSON header line, then the match as gzip'd Smile.

The file: one line of JSON (``{"format":"BGF","version":...,"compress":true,
"useSmile":true}``), then the match document, gzip- (or zlib-) compressed when
``compress`` and Smile-encoded (:mod:`pulvezar.formats.smile`) when
``useSmile``, else plain.  The document, as public readers of BGBlitz files
describe it (BGBlitz publishes no specification):

* the match: ``matchlen`` (0: money), ``nameGreen``/``nameRed`` (players 0
  and 1), ``event``, ``site``, ``date``, ``useCrawford``, ``useJacoby``,
  ``useBeaver``, ``finalGreen``/``finalRed`` and ``games``;
* a game: ``scoreGreen``/``scoreRed``, ``isCrawford``, ``wonPoints``,
  ``wasResignation`` and ``moves``;
* a move record: ``player`` (-1 green, 1 red); a play's dice ``red`` and
  ``green`` and its checkers ``from``/``to`` (four each, in the mover's
  numbering: 25 the bar, 0 or less borne off, -1 unused); a dance has
  ``dancingEquity`` and its dice in ``from[0]``/``to[0]``; a record with
  ``from[0] == -1`` is a cube action when ``equity.cubeDecision.hasDoubled``
  is true (``hasAccepted`` its answer; the record after it, the answer's own,
  is passed over) and nothing otherwise.

Analysis fields are not read.  Every game is replayed through the match
model; a record it cannot follow cuts the game there (``cut_at``).  A game
that ends by resignation, or whose record stops early, is scored as the
file's scores say.  Caps (:mod:`pulvezar.formats.limits`): ``max_bytes`` on
the file, ``bgf_max_decompressed_bytes`` on the inflated body (read in
bounded steps, so a gzip bomb stops at the cap), the Smile caps, and
``max_games``/``max_actions``.  A plain-JSON body (``useSmile`` false) is held
to ``bgf_max_decompressed_bytes``; its nesting to Python's recursion limit (a
typed error past it).  Bytes after the gzip stream are not read.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from pulvezar.errors import PulvezarError
from pulvezar.formats.document import Cut, fail, int_field, move_checker, position_after, str_field
from pulvezar.formats.limits import DEFAULT_LIMITS, FileTooLargeError, Limits, check_bytes, check_count
from pulvezar.formats.record import Action, GameRecord, MatchRecord, apply_action
from pulvezar.formats.smile import HEADER, decode_smile
from pulvezar.match.game import Game, Phase, SessionOptions
from pulvezar.rules.position import Position

__all__ = ["from_bgf_json", "inflate", "is_bgf", "read_bgf", "split_bgf"]

_HEADER_MAX = 4096  # the header line's length at most
_STEP = 1 << 16  # inflated bytes per step
_GZIP = b"\x1f\x8b"
_GREEN, _RED = -1, 1  # BGBlitz's ``player``: green is player 0, red player 1


_fail = fail


def is_bgf(head: bytes) -> bool:
    """Whether bytes start like a ``.bgf`` file (its header line names the BGF format)."""
    first = head[:_HEADER_MAX].split(b"\n", 1)[0]
    return first.lstrip().startswith(b"{") and b'"BGF"' in first


def split_bgf(data: bytes) -> tuple[dict[str, Any], bytes]:
    """The header (as JSON) and the body of a ``.bgf`` file; a body alone (gzip or Smile) has ``{}``."""
    if data[:2] == _GZIP or data[:3] == HEADER:
        return {}, data
    nl = data.find(b"\n", 0, _HEADER_MAX)
    if not data.lstrip()[:1] == b"{" or nl < 0:
        raise _fail("not a .bgf file (no JSON header line)")
    try:
        header = json.loads(data[:nl].decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise _fail("the .bgf header line is not JSON") from None
    if not isinstance(header, dict):
        raise _fail("the .bgf header line is not a JSON object")
    return header, data[nl + 1 :]


def inflate(body: bytes, limits: Limits) -> bytes:
    """A gzip (or zlib) body inflated in bounded steps, at most ``bgf_max_decompressed_bytes``."""
    cap = limits.bgf_max_decompressed_bytes
    d = zlib.decompressobj(47)  # 32 + 15: gzip or zlib, by the header
    out = bytearray()
    pending = body
    try:
        while not d.eof:
            piece = d.decompress(pending, _STEP)
            out += piece
            if len(out) > cap:
                raise FileTooLargeError(
                    "bgf_max_decompressed_bytes", cap, "the .bgf body inflates to more bytes than allowed"
                )
            pending = d.unconsumed_tail
            if not piece and not pending:
                break
    except zlib.error as e:
        raise _fail(f"the .bgf body is not gzip: {e}") from None
    if not d.eof:
        raise _fail("the .bgf body ends early (truncated gzip)")
    return bytes(out)


def _document(data: bytes, limits: Limits) -> Any:
    header, body = split_bgf(data)
    if header.get("compress", True) is not False:
        body = inflate(body, limits)
    elif len(body) > limits.bgf_max_decompressed_bytes:
        cap = limits.bgf_max_decompressed_bytes
        raise FileTooLargeError("bgf_max_decompressed_bytes", cap, "the .bgf body is larger than allowed")
    if header.get("useSmile", True) is not False or body[:3] == HEADER:
        return decode_smile(body, limits=limits)
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise _fail(f"the .bgf body is not JSON: {type(e).__name__}") from None


# ---- the match document ---------------------------------------------------------------------------------


def _int(obj: dict[str, Any], key: str, lo: int, hi: int, default: int | None = None) -> int:
    return int_field("BGF", obj, key, lo, hi, default)


def _str(obj: dict[str, Any], key: str) -> str:
    return str_field("BGF", obj, key)


_Cut = Cut


def _points(m: dict[str, Any], key: str) -> list[int]:
    pts = m.get(key, [-1, -1, -1, -1])
    if not isinstance(pts, list) or len(pts) > 4 or not all(type(p) is int and -1 <= p <= 25 for p in pts):
        raise _Cut(f"{key} is not a list of at most four points")
    return list(pts)


def _after(position: Position, frm: list[int], to: list[int]) -> Position:
    """The mover's position after BGBlitz's checker moves (mover's numbering, 25 bar, 0 or less off)."""
    mine, theirs = list(position.mine), list(position.theirs)
    for src, dst in zip(frm, to, strict=False):
        if src == -1:
            break
        move_checker(mine, theirs, src, dst)
    return position_after(mine, theirs, "moves")


def _die(value: Any) -> bool:
    return type(value) is int and 1 <= value <= 6


def _cube(m: dict[str, Any]) -> dict[str, Any]:
    eq = m.get("equity")
    cd = eq.get("cubeDecision") if isinstance(eq, dict) else None
    return cd if isinstance(cd, dict) else {}


def _no_play(m: Any) -> bool:
    """Whether a record moves no checker and rolls no dice (a cube or closing record)."""
    if not isinstance(m, dict) or "dancingEquity" in m:
        return False
    frm = m.get("from", [-1])
    return isinstance(frm, list) and (not frm or frm[0] == -1)


class _Replay:
    """One game's records replayed into actions."""

    def __init__(self, game: Game, acts: list[Action]) -> None:
        self.game = game
        self.acts = acts
        self.skip_answer = False

    def act(self, action: Action) -> None:
        try:
            apply_action(self.game, action)
        except PulvezarError as e:
            raise _Cut(str(e)) from None
        self.acts.append(action)

    def record(self, m: Any, nxt: Any) -> None:
        if not isinstance(m, dict):
            raise _Cut("a move record is not an object")
        who = m.get("player")
        if who not in (_GREEN, _RED) or isinstance(who, bool):
            raise _Cut(f"player {who!r} is neither -1 (green) nor 1 (red)")
        player = 0 if who == _GREEN else 1
        frm, to = _points(m, "from"), _points(m, "to")
        if self.skip_answer and (not frm or frm[0] == -1) and "dancingEquity" not in m:
            self.skip_answer = False  # the answer's own record, read with the double
            return
        if "dancingEquity" in m:
            dice = (
                (frm[0], to[0])
                if frm and to and _die(frm[0]) and _die(to[0])
                else (m.get("red"), m.get("green"))
            )
            self.play(player, dice, [], [])
        elif not frm or frm[0] == -1:
            self.cube(player, m, nxt)
        else:
            self.play(player, (m.get("red"), m.get("green")), frm, to)

    def play(self, player: int, dice: tuple[Any, Any], frm: list[int], to: list[int]) -> None:
        self.skip_answer = False
        if not (_die(dice[0]) and _die(dice[1])):
            raise _Cut(f"dice {dice!r} are not two dice")
        game = self.game
        if game.phase is not Phase.OPENING and (game.phase is not Phase.ROLL or game.turn != player):
            raise _Cut("a roll out of turn")
        self.act(Action(player, "roll", dice=(int(dice[0]), int(dice[1]))))
        if game.turn != player:
            raise _Cut("the opening roll's winner is not the player who moves")
        assert game.dice is not None
        plays = game.rules.legal_plays(game.position, game.dice)
        try:
            chosen = plays[plays.index_of(_after(game.position, frm, to))]
        except ValueError:
            raise _Cut(f"from {frm} to {to} is not a legal play of {dice[0]}{dice[1]}") from None
        self.act(Action(player, "play", notation=chosen.notation))

    def cube(self, player: int, m: dict[str, Any], nxt: Any) -> None:
        cd = _cube(m)
        if cd.get("hasDoubled") is not True:
            return  # nothing happened (a closing record, a no-double)
        if self.game.phase is not Phase.ROLL or self.game.turn != player:
            raise _Cut("a double out of turn")
        self.act(Action(player, "double", value=2 * self.game.cube_value))
        answer = cd.get("hasAccepted")
        if not isinstance(answer, bool) and isinstance(nxt, dict):
            answer = _cube(nxt).get("hasAccepted")
        if not isinstance(answer, bool):
            raise _Cut("a double without an answer")
        self.act(Action(1 - player, "take" if answer else "drop"))
        self.skip_answer = True


def _winner(score: tuple[int, int], after: tuple[int, int] | None) -> int | None:
    """Who won a game: whose score the next game's (or the final) score has grown."""
    if after is None:
        return None
    grown = [after[i] > score[i] for i in (0, 1)]
    return grown.index(True) if grown.count(True) == 1 else None


def _game(
    record: MatchRecord,
    g: Any,
    number: int,
    score: tuple[int, int],
    after: tuple[int, int] | None,
    limits: Limits,
) -> GameRecord:
    if not isinstance(g, dict):
        raise _fail(f"game {number} is not an object")
    rec = GameRecord(number=number, score=score)
    rec.crawford = g.get("isCrawford") is True and record.length > 1
    moves = g.get("moves", [])
    if not isinstance(moves, list):
        raise _fail(f"game {number}: moves is not a list")
    check_count("max_actions", len(moves), limits, "move records in a game")
    game = record.new_game(rec)
    replay = _Replay(game, rec.actions)
    for k, m in enumerate(moves):
        if game.phase is Phase.OVER:
            if _no_play(m):
                continue  # the answer's or a closing record after a drop
            rec.cut_at = f"move {k + 1}: a move after the end of the game"
            break
        try:
            replay.record(m, moves[k + 1] if k + 1 < len(moves) else None)
        except _Cut as e:
            rec.cut_at = f"move {k + 1}: {e}"
            break
    won = _int(g, "wonPoints", 0, 1 << 20, 0)
    if game.phase is Phase.OVER:
        rec.winner, rec.points = game.winner, game.points
        if won and won != game.points:
            rec.notes.append(f"the file says {won} points, the replay {game.points}")
    else:
        winner = _winner(score, after)
        if winner is not None and rec.cut_at is None and g.get("wasResignation") is True:
            level = won // max(game.cube_value, 1)
            if level in (1, 2, 3) and game.phase in (Phase.ROLL, Phase.MOVE):
                try:
                    replay.act(Action(1 - winner, "resign", value=level))
                    replay.act(Action(winner, "accept"))
                except _Cut as e:
                    rec.cut_at = f"the resignation: {e}"
        if _over(game):  # the resignation ended it
            rec.winner, rec.points = game.winner, game.points
        elif winner is not None:
            rec.winner, rec.points = winner, won
    if rec.winner is not None:
        rec.actions.append(Action(rec.winner, "win", value=rec.points))
    return rec


def _over(game: Game) -> bool:
    return game.phase is Phase.OVER


def _scores(g: Any) -> tuple[int, int] | None:
    if not isinstance(g, dict) or "scoreGreen" not in g:
        return None
    return _int(g, "scoreGreen", 0, 99_999), _int(g, "scoreRed", 0, 99_999)


def from_bgf_json(doc: Any, *, limits: Limits | None = None) -> MatchRecord:
    """A match from BGBlitz's match document, every game replayed (cut at a record it cannot follow)."""
    limits = limits or DEFAULT_LIMITS
    if not isinstance(doc, dict):
        raise _fail("a .bgf match is a JSON object")
    length = _int(doc, "matchlen", 0, 99_999, 0)
    record = MatchRecord(length=length, players=(_str(doc, "nameGreen"), _str(doc, "nameRed")))
    for tag, key in (("Event", "event"), ("Site", "site"), ("Date", "date")):
        if _str(doc, key):
            record.tags[tag] = _str(doc, key)
    if length:
        record.tags["Crawford"] = "On" if doc.get("useCrawford", True) is not False else "Off"
    else:
        record.options = SessionOptions(
            jacoby=doc.get("useJacoby") is True, beaver=doc.get("useBeaver") is True
        )
    games = doc.get("games", [])
    if not isinstance(games, list):
        raise _fail("games is not a list")
    check_count("max_games", len(games), limits, "games")
    final = None
    if "finalGreen" in doc:
        final = (_int(doc, "finalGreen", 0, 99_999), _int(doc, "finalRed", 0, 99_999))
    score = (0, 0)
    for i, g in enumerate(games):
        score = _scores(g) or score
        after = _scores(games[i + 1]) if i + 1 < len(games) else final
        rec = _game(record, g, i + 1, score, after, limits)
        record.games.append(rec)
        score = rec.score_after(length)
    return record


def read_bgf(data: bytes, *, limits: Limits | None = None) -> MatchRecord:
    """Read one ``.bgf`` file (raises :class:`MatchFileError`, :class:`FileTooLargeError` at a cap)."""
    limits = limits or DEFAULT_LIMITS
    if not isinstance(data, bytes | bytearray | memoryview):
        raise _fail(f"a .bgf file is bytes, not {type(data).__name__}")
    data = bytes(data)
    check_bytes(len(data), limits)
    return from_bgf_json(_document(data, limits), limits=limits)
