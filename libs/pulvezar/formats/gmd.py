r"""GNU Gibbon's match dump (``.gmd``, ``GMD-1``): its log of a FIBS match.

The first line is ``GMD-1``; then one item a line, a keyword and a colon first
(keywords and colours in any case, ``#`` starts a comment): ``Length: 7``
(``unlimited`` or ``money``: a money session), ``Player:W: name``,
``Location: text``, ``Rule: Crawford``, ``Game:`` (a new game),
``Roll:W: 4 2``, ``Move:W: 8/4 6/4``, ``Double:W``, ``Take:B``, ``Drop:B``,
``Resign:W:2`` (the points offered), ``Accept:B`` and ``Reject:B``.  Colours:
``W`` (``white``, ``O``, ``0``), ``B`` (``black``, ``X``, ``1``) and ``-``, the
opening roll before it is known who won it.

Both players' moves are in White's numbering: White moves down (24 to 1, then
``off``), Black up (``bar/2`` enters on White's 2-point, ``1/3`` is Black's
24/22); ``b``/``bar``, ``o``/``off``/``h``/``home``, and ``-`` for ``/``.
White is the player whose numbering the file uses, gnubg's player 1 -- the
right column of Gibbon's ``.mat`` export, ``B`` in its SGF -- so the players
of the record are (Black, White).  Scores are not written: each game's comes
from the results before it.  Like the other readers, games are replayed
through the match model and cut (``cut_at``) at the first line they cannot
follow; the rest of that game is skipped.

>>> rec = read_gmd('''GMD-1
... Length: 3
... Player:W: Ann
... Player:B: Bob
... Game:
... Roll:-: 3 1
... Move:W: 8/5 6/5
... Double:B
... Drop:W''')
>>> rec.players, [(a.player, a.kind) for a in rec.games[0].actions]
(('Bob', 'Ann'), [(1, 'roll'), (1, 'play'), (0, 'double'), (1, 'drop'), (0, 'win')])
>>> rec.games[0].actions[1].notation, rec.games[0].winner, rec.games[0].points
('8/5 6/5', 0, 1)
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from pulvezar.errors import PulvezarError
from pulvezar.formats.limits import DEFAULT_LIMITS, Limits, check_bytes, check_count, parse_int, split_lines
from pulvezar.formats.record import Action, GameRecord, MatchFileError, MatchRecord, apply_action
from pulvezar.match.game import Phase
from pulvezar.rules.position import Position

__all__ = ["read_gmd"]

_MAGIC = re.compile(r"\s*GMD-(\d+)\s*$")
_KEYWORD = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*:", re.A)
_COLOUR = re.compile(r"\s*(white|black|[0OW1XB-])(?![A-Za-z0-9])\s*", re.I)
_INT = re.compile(r"\s*(\d+)\s*$")
_DICE = re.compile(r"\s*([1-6])\s+([1-6])\s*$")
_POINT = r"(\d+|bar|b|home|h|off|o)"
_MOVEMENT = re.compile(rf"\s*{_POINT}\s*[/-]\s*{_POINT}(?![A-Za-z0-9])", re.I)
_ESCAPE = re.compile(r"\\([0-7]{1,3}|.)", re.S)
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_PLAYER = {"w": 1, "white": 1, "o": 1, "0": 1, "b": 0, "black": 0, "x": 0, "1": 0, "-": None}
_ACTIONS = ("roll", "move", "double", "take", "drop", "resign", "accept", "reject")


@dataclass(slots=True)
class _Item:
    """One action line, read but not yet replayed."""

    kind: str
    player: int | None
    line: int
    dice: tuple[int, int] | None = None
    moves: list[tuple[int, int]] = field(default_factory=list)  # (from, to) in White's numbering
    value: int = 0


class _Cut(Exception):
    """Internal: stop replaying this game."""


def _decode(data: str | bytes) -> str:
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
    else:
        text = data
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _unescape(text: str) -> str:
    """Names are written with C escapes (``\\n``, ``\\\\``, octal)."""

    def one(m: re.Match[str]) -> str:
        s = m.group(1)
        if s[0] in "01234567":
            return chr(int(s, 8))
        return _ESCAPES.get(s, s)

    return _ESCAPE.sub(one, text)


def _point(token: str) -> int:
    """A point of White's numbering; 25 stands for the bar, 0 for off (either side's)."""
    t = token.lower()
    if t.isdigit():
        return int(t)
    return 25 if t.startswith("b") else 0


class _Line:
    """The text of one line, read left to right, with the column of every error."""

    def __init__(self, text: str, number: int) -> None:
        self.text, self.number, self.pos = text, number, 0

    def error(self, message: str) -> MatchFileError:
        return MatchFileError(message, line=self.number, column=self.pos + 1)

    def take(self, rx: re.Pattern[str], what: str) -> re.Match[str]:
        m = rx.match(self.text, self.pos)
        if m is None:
            self.pos += len(self.text[self.pos :]) - len(self.text[self.pos :].lstrip())
            raise self.error(f"expected {what}, got {self.text[self.pos :].strip()!r}")
        self.pos = m.end()
        return m

    def colour(self) -> int | None:
        return _PLAYER[self.take(_COLOUR, "a colour (W, B or -)").group(1).lower()]

    def colon(self) -> None:
        self.take(re.compile(r"\s*:"), "':'")

    def end(self) -> None:
        if self.text[self.pos :].strip():
            self.pos += len(self.text[self.pos :]) - len(self.text[self.pos :].lstrip())
            raise self.error(f"unexpected {self.text[self.pos :].strip()!r}")


def read_gmd(data: str | bytes, *, limits: Limits | None = None) -> MatchRecord:
    """Read a Gibbon match dump (``bytes``: UTF-8, else Latin-1).

    Raises :class:`MatchFileError` on a line that is not GMD (an unknown
    keyword or rule, a bad colour, dice or move), with its line and column,
    and its :class:`~pulvezar.formats.limits.FileTooLargeError` beyond a cap
    of ``limits`` (bytes, lines, line length, games, actions, digits).
    """
    limits = limits or DEFAULT_LIMITS
    check_bytes(len(data), limits)
    record = MatchRecord()
    games: list[list[_Item]] = []
    crawford = False
    lines = split_lines(_decode(data), limits)
    magic = _MAGIC.match(lines[0].split("#", 1)[0]) if lines else None
    if magic is None:
        raise MatchFileError("not a Gibbon match dump: the first line is not 'GMD-1'", line=1)
    if magic.group(1) != "1":
        raise MatchFileError(f"GMD version {magic.group(1)} is not supported, only 1", line=1, column=5)
    names: list[str] = ["", ""]
    for n, raw in enumerate(lines[1:], start=2):
        head = _KEYWORD.match(raw)
        keyword = head.group(1).lower() if head else ""
        text = raw if keyword in ("player", "location") else raw.split("#", 1)[0]
        if not text.strip():
            continue
        ln = _Line(text, n)
        if head is None:
            ln.pos = len(text) - len(text.lstrip())
            raise ln.error(f"expected 'Keyword:', got {text.strip()!r}")
        ln.pos = head.end()
        if keyword == "length":
            value = ln.text[ln.pos :].strip().lower()
            if value in ("unlimited", "money"):
                record.length = 0
            else:
                m = ln.take(_INT, "a match length")
                record.length = parse_int(
                    m.group(1), "the match length", limits, line=n, column=m.start(1) + 1
                )
        elif keyword == "player":
            player = ln.colour()
            if player is None:
                raise ln.error("a player's colour is W or B")
            ln.colon()
            names[player] = _unescape(ln.text[ln.pos :].strip())
        elif keyword == "location":
            record.tags["Site"] = _unescape(ln.text[ln.pos :].strip())
        elif keyword == "rule":
            rule = ln.text[ln.pos :].strip()
            if rule.lower() != "crawford":
                ln.pos += len(ln.text[ln.pos :]) - len(ln.text[ln.pos :].lstrip())
                raise ln.error(f"unknown rule {rule!r}")
            crawford = True
        elif keyword == "game":
            ln.end()
            check_count("max_games", len(games) + 1, limits, "games", line=n)
            games.append([])
        elif keyword in _ACTIONS:
            if not games:
                ln.pos = head.start(1)
                raise ln.error(f"{head.group(1)} before the first 'Game:'")
            check_count("max_actions", len(games[-1]) + 1, limits, "actions in a game", line=n)
            games[-1].append(_action(ln, keyword, limits))
        else:
            ln.pos = head.start(1)
            raise ln.error(f"unknown line kind {head.group(1)!r}")
    record.players = (names[0], names[1])
    if record.length and not crawford:
        record.tags["Crawford"] = "Off"
    crawford_done = not crawford
    for number, items in enumerate(games, start=1):
        prev = record.games[-1] if record.games else None
        rec = GameRecord(number=number, score=(prev.score_after(record.length) if prev else (0, 0)))
        if record.length > 1 and not crawford_done and record.length - 1 in rec.score:
            rec.crawford = crawford_done = True
        _replay(record, rec, items)
        record.games.append(rec)
    return record


def _action(ln: _Line, keyword: str, limits: Limits) -> _Item:
    player = ln.colour()
    item = _Item(keyword, player, ln.number)
    if keyword == "roll":
        ln.colon()
        m = ln.take(_DICE, "two dice")
        item.dice = (int(m.group(1)), int(m.group(2)))
        return item
    if player is None:
        raise ln.error(f"{keyword} needs a colour, W or B")
    if keyword == "move":
        ln.colon()
        while ln.text[ln.pos :].strip():
            if len(item.moves) == 4:
                raise ln.error("more than four movements")
            m = ln.take(_MOVEMENT, "a movement like 8/4")
            for token in (m.group(1), m.group(2)):
                if token.isdigit() and not (len(token) <= 2 and 1 <= int(token) <= 24):
                    ln.pos = m.start(1)
                    raise ln.error(f"a point is 1 to 24, bar or off: {m.group(0).strip()!r}")
            item.moves.append((_point(m.group(1)), _point(m.group(2))))
        return item
    if keyword == "resign":
        ln.colon()
        m = ln.take(_INT, "the points resigned")
        item.value = parse_int(
            m.group(1), "the points resigned", limits, line=ln.number, column=m.start(1) + 1
        )
        if not item.value:
            raise ln.error("a resignation of 0 points")
        return item
    ln.end()
    return item


def _own(point: int, player: int, to: bool) -> int:
    """A point of White's numbering in ``player``'s own: 25 the bar, 0 off, -1 impossible."""
    if point == 25:
        return -1 if to else 25  # nothing moves to the bar
    if point == 0:
        return 0 if to else -1  # nor from off the board
    return point if player == 1 else 25 - point


def _after(position: Position, moves: list[tuple[int, int]]) -> Position | None:
    """The position (mover's view) after ``moves`` in the mover's numbering; None if impossible."""
    mine, theirs = list(position.mine), list(position.theirs)
    for src, dst in moves:
        if not (0 < src <= 25 and 0 <= dst < 25) or src == dst or mine[src - 1] == 0:
            return None
        mine[src - 1] -= 1
        if dst:
            mine[dst - 1] += 1
            if theirs[24 - dst] == 1:
                theirs[24 - dst] = 0
                theirs[24] += 1
    try:
        return Position(mine, theirs)
    except PulvezarError:
        return None


def _replay(record: MatchRecord, rec: GameRecord, items: list[_Item]) -> None:
    """Replay one game's items into ``rec.actions``; cut at the first bad one."""
    game = record.new_game(rec)

    def act(action: Action) -> None:
        apply_action(game, action)
        rec.actions.append(action)

    for i, it in enumerate(items):
        try:
            if game.phase is Phase.OVER:
                raise _Cut("a line after the end of the game")
            p = it.player
            if it.kind == "roll":
                assert it.dice is not None
                if game.phase is Phase.OPENING:
                    if it.dice[0] == it.dice[1]:
                        rec.notes.append(f"line {it.line}: a tied opening roll, rolled again")
                        continue
                    if p is None:
                        mover = next((x for x in items[i + 1 :] if x.kind != "roll"), None)
                        if mover is None or mover.player is None:
                            raise _Cut("an opening roll and no move that tells who won it")
                        p = mover.player
                    act(Action(p, "roll", dice=it.dice))
                    if game.turn != p:
                        raise _Cut("the opening roll's winner is not the player on roll")
                    continue
                if p is None or game.phase is not Phase.ROLL or game.turn != p:
                    raise _Cut("a roll out of turn")
                act(Action(p, "roll", dice=it.dice))
                continue
            assert p is not None
            if it.kind == "move":
                if game.phase is not Phase.MOVE or game.turn != p:
                    raise _Cut("a move without a roll of the player's own")
                assert game.dice is not None
                plays = game.rules.legal_plays(game.position, game.dice)
                if not it.moves:
                    if plays[0].moves:
                        raise _Cut("no move, but there are legal plays")
                    act(Action(p, "play", notation=plays[0].notation))
                    continue
                own = [(_own(a, p, False), _own(b, p, True)) for a, b in it.moves]
                play = None
                for order in itertools.permutations(own):  # the file's order first
                    after = _after(game.position, list(order))
                    if after is not None:
                        try:
                            play = plays[plays.index_of(after)]
                            break
                        except ValueError:
                            continue
                if play is None:
                    moves = " ".join(f"{a}/{b}" for a, b in it.moves)
                    raise _Cut(f"{moves!r} (White's numbering) is not a legal play")
                act(Action(p, "play", notation=play.notation))
            elif it.kind == "double":
                if game.turn != p:
                    raise _Cut("a double out of turn")
                act(Action(p, "double", value=2 * game.cube_value))
            elif it.kind in ("take", "drop"):
                if game.phase is not Phase.DOUBLED or game.turn == p:
                    raise _Cut(f"a {it.kind} without a double")
                act(Action(p, "take" if it.kind == "take" else "drop"))
            elif it.kind == "resign":
                if game.phase not in (Phase.ROLL, Phase.MOVE):
                    raise _Cut(f"a resignation while the game is at {game.phase.value}")
                top = game.resignation_levels(p)[-1]
                wanted = max(1, -(-it.value // game.cube_value))
                if wanted > top:
                    rec.notes.append(
                        f"line {it.line}: {it.value} points on a {game.cube_value}-cube are more than the"
                        f" rules allow here; read as a level-{top} resignation"
                    )
                act(Action(p, "resign", value=min(wanted, top)))
            else:  # accept, reject
                if game.phase is not Phase.RESIGNED or game.resigner == p:
                    raise _Cut(f"{'an' if it.kind == 'accept' else 'a'} {it.kind} without a resignation")
                act(Action(p, "accept" if it.kind == "accept" else "reject"))
        except (_Cut, PulvezarError) as e:
            rec.cut_at = f"line {it.line}: {e}"
            break
    if game.phase is Phase.OVER:
        assert game.winner is not None
        rec.winner, rec.points = game.winner, game.points
        rec.actions.append(Action(game.winner, "win", value=game.points))
