r"""GNU Backgammon's SGF (``GM[6]``) match files: read and write.

One game tree per game.  The root node holds the match (``MI[length:7][game:0]
[ws:0][bs:0]``, ``PW``/``PB`` names, ``RU`` rules, ``RE`` result, ...), then one
node per action: ``W[52xvmh]`` (dice, then "from to" letter pairs), ``B[double]``,
``W[take]``, ``W[drop]``; ``PL[B]DI[33]`` is a roll without a play (gnubg writes
it when the roller then resigns).  A ``double`` of the doubled player while the
double is pending is a beaver, then one of the doubler a raccoon (gnubg's
form; ``beaver``/``raccoon`` values are read too); ``RU[Jacoby]`` sets the
Jacoby rule of a money session, and a beaver in the file the beaver rule.
White is player 0 (the left column of a ``.mat`` file), Black player 1.
Points are letters in White's numbering: ``a`` is White's 1-point (Black's
24-point), ``x`` White's 24-point, ``y`` the bar and ``z`` off.  A resignation
is only in ``RE`` (``W+2R``); Gibbon also writes ``B[resign:2]`` (points) /
``W[accept]`` or ``W[reject]`` nodes, which are read too; a rejected
resignation is written back in that form, as gnubg has no other.

Tavla (no GNU Backgammon form: its matches are written all the same) is ``RU[Tavla]``
in every game's root, with ``:HitAndStop`` and ``:MustBearOff`` where those
options are on, read back as the record's ``Variation``/``HitAndStop``/
``MustBearOff`` tags (:attr:`MatchRecord.rules`); the first root's ``C`` says
that gnubg cannot read the file.

What the match model has no place for is kept verbatim: the analysis and any
other property of a move node in :attr:`Action.props`, the game's root
properties in :attr:`GameRecord.props`, the match's in
:attr:`MatchRecord.tags`.  Like the ``.mat`` reader, every game is replayed
through the match model; a game is cut (``cut_at``) at a node it cannot
follow, and the nodes from there on are kept unread so that export writes them
back.  Set-up nodes (``AE``/``AB``/``AW`` board, ``PL`` turn, ``CV`` cube value,
``CP`` cube owner ``c``/``w``/``b``) before a game's first decision start it
from that position (:attr:`GameRecord.setup`), as gnubg writes a game whose board
was set; a set-up node after a decision cuts the game.

>>> rec = read_sgf('''(;FF[4]GM[6]CA[UTF-8]MI[length:3][game:0][ws:0][bs:0]
... PW[Ann]PB[Bob]RU[Crawford]RE[B+1]
... ;B[31qtst]C[a \\] b]
... ;W[double];B[drop])''')
>>> rec.length, rec.players, [(a.player, a.kind) for a in rec.games[0].actions]
(3, ('Ann', 'Bob'), [(1, 'roll'), (1, 'play'), (0, 'double'), (1, 'drop'), (0, 'win')])
>>> rec.games[0].actions[1].notation, rec.games[0].actions[1].props
('8/5 6/5', {'C': ['a ] b']})
>>> print(write_sgf(rec).splitlines()[1])
;B[31qtst]C[a \] b]
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field, replace

from pulvezar.errors import PulvezarError
from pulvezar.formats.limits import (
    DEFAULT_LIMITS,
    FileTooLargeError,
    Limits,
    check_bytes,
    check_count,
    parse_int,
)
from pulvezar.formats.record import Action, ActionKind, GameRecord, MatchFileError, MatchRecord, apply_action
from pulvezar.match.game import Game, Phase, SessionOptions, Setup
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play, Rules

__all__ = [
    "ANALYSIS_PROPS",
    "TAVLA_NOTE",
    "SgfNode",
    "SgfTree",
    "annotate",
    "move_letters",
    "parse_sgf",
    "read_sgf",
    "write_annotated_sgf",
    "write_sgf",
]

Props = dict[str, list[str]]

_COLOUR = "WB"  # index = player
_BAR, _OFF = "y", "z"
_MOVE_VALUE = re.compile(r"([1-6])([1-6])((?:[a-z]{2}){0,4})")
_RESULT = re.compile(r"([WB])\+(\d*)(R|Resign)?$", re.I)
_RESIGN = re.compile(r"resign(?::(\d+))?$")
_STRUCTURAL = {"FF", "GM", "CA", "MI", "PW", "PB", "RE"}  # root properties rebuilt on export
_GAME_ROOT = {"RU", "GS"}  # per-game root properties (never match tags)
_SETUP = ("AE", "AB", "AW", "CV", "CP", "CO")
_TAIL = "~tail"  # GameRecord.props key: the unread nodes of a cut game, as SGF text
_TAVLA = "Tavla"  # RU's first part of a Tavla game; then HitAndStop, MustBearOff where on
_TAVLA_OPTIONS = {"hitandstop": "HitAndStop", "mustbearoff": "MustBearOff"}  # RU part (lower) -> tag
TAVLA_NOTE = (
    "Tavla (Turkish rules: no doubling cube, gammon 2 points, no backgammon) written by pulvezar. "
    "GNU Backgammon cannot read Tavla rules: it would replay these games as backgammon. "
    "pulvezar reads the file back (RU[Tavla...])."
)
"""The comment of a Tavla SGF's first game root (before any comment of the match's own)."""
# .mat tag names with an SGF property (write_sgf of a record read from .mat)
_MAT_TAGS = {"Event": "EV", "EventDate": "DT", "Round": "RO", "Site": "PC", "Transcriber": "AN"}


# ---- generic SGF ---------------------------------------------------------------------


@dataclass(slots=True)
class SgfNode:
    """One node: properties in file order, values unescaped; ``line`` is 1-based."""

    props: Props = field(default_factory=dict)
    line: int = 0


@dataclass(slots=True)
class SgfTree:
    """A game tree: its main sequence of nodes and its variations."""

    nodes: list[SgfNode] = field(default_factory=list)
    children: list[SgfTree] = field(default_factory=list)

    def main_line(self) -> list[SgfNode]:
        """The nodes of the first variation all the way down."""
        nodes, tree = list(self.nodes), self
        while tree.children:
            tree = tree.children[0]
            nodes += tree.nodes
        return nodes


def parse_sgf(text: str, *, limits: Limits | None = None) -> list[SgfTree]:
    r"""Parse an SGF collection (any game) into trees, without recursion.

    Nesting deeper than ``limits.sgf_max_depth`` or more than ``limits.sgf_max_nodes``
    nodes is a :class:`~pulvezar.formats.limits.FileTooLargeError`.

    >>> [t.nodes[1].props for t in parse_sgf("(;GM[6];C[a\\]b\\\\][c]XY[])")]
    [{'C': ['a]b\\', 'c'], 'XY': ['']}]
    """
    limits = limits or DEFAULT_LIMITS
    check_bytes(len(text), limits)
    pos, line, col0 = 0, 1, 0  # col0: offset of the current line's start
    n = len(text)

    def error(msg: str) -> MatchFileError:
        return MatchFileError(msg, line=line, column=pos - col0 + 1)

    def skip_space() -> None:
        nonlocal pos, line, col0
        while pos < n and text[pos] in " \t\r\n":
            if text[pos] == "\n":
                line, col0 = line + 1, pos + 1
            pos += 1

    def value() -> str:
        nonlocal pos, line, col0
        pos += 1  # "["
        out: list[str] = []
        while True:
            if pos >= n:
                raise error("a property value is not closed with ']'")
            c = text[pos]
            if c == "\\" and pos + 1 < n:
                nxt = text[pos + 1]
                pos += 2
                if nxt in "\r\n":  # a soft line break
                    if nxt == "\r" and pos < n and text[pos] == "\n":
                        pos += 1
                    line, col0 = line + 1, pos
                else:
                    out.append(nxt)
                continue
            if c == "]":
                pos += 1
                return "".join(out)
            if c == "\n":
                line, col0 = line + 1, pos + 1
            out.append(c)
            pos += 1

    def node() -> SgfNode:
        nonlocal pos
        pos += 1  # ";"
        nd = SgfNode(line=line)
        while True:
            skip_space()
            start = pos
            while pos < n and text[pos].isalpha():
                pos += 1
            if start == pos:
                return nd
            ident = "".join(c for c in text[start:pos] if c.isupper()) or text[start:pos]
            skip_space()
            if pos >= n or text[pos] != "[":
                pos = start
                raise error(f"property {ident} has no value")
            values = nd.props.setdefault(ident, [])
            while pos < n and text[pos] == "[":
                values.append(value())
                skip_space()

    trees: list[SgfTree] = []
    open_trees: list[SgfTree] = []  # the game trees around pos, outermost first
    count = 0
    while True:
        skip_space()
        if pos >= n:
            if open_trees:
                raise error("a game tree is not closed with ')'")
            break
        c = text[pos]
        if not open_trees:
            if c != "(":
                raise error(f"unexpected {c!r} outside a game tree")
            pos += 1
            open_trees.append(SgfTree())
            continue
        t = open_trees[-1]
        if c == ";":
            if t.children:
                raise error("a node after the variations of a game tree")
            count += 1
            check_count("sgf_max_nodes", count, limits, "nodes", line=line)
            t.nodes.append(node())
        elif c == "(":
            if len(open_trees) >= limits.sgf_max_depth:
                cap = limits.sgf_max_depth
                raise FileTooLargeError("sgf_max_depth", cap, "game trees nested too deep", line=line)
            pos += 1
            child = SgfTree()
            t.children.append(child)
            open_trees.append(child)
        elif c == ")":
            pos += 1
            if not t.nodes:
                raise error("an empty game tree")
            open_trees.pop()
            if not open_trees:
                trees.append(t)
        else:
            raise error(f"unexpected {c!r}")
    if not trees:
        raise MatchFileError("no game tree in the file", line=1)
    return trees


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


def _node_text(props: Props) -> str:
    return ";" + "".join(k + "".join(f"[{_escape(v)}]" for v in vs) for k, vs in props.items())


def _decode(data: str | bytes) -> str:
    if isinstance(data, str):
        return data.removeprefix("\ufeff")
    charset = re.search(rb"CA\[([^\]]{0,40})\]", data)  # bounded: linear on "CA[CA[CA[..."
    codecs = [charset.group(1).decode("ascii", "replace").strip()] if charset else []
    for codec in [*codecs, "utf-8-sig", "latin-1"]:
        try:
            return data.decode(codec).removeprefix("\ufeff")
        except (UnicodeError, LookupError, ValueError):  # idna and punycode raise UnicodeError
            continue
    raise AssertionError("latin-1 decodes any bytes")  # pragma: no cover


# ---- reading -------------------------------------------------------------------------


class _Cut(Exception):
    """Internal: stop replaying this game."""


def _point(letter: str, player: int) -> int:
    """A letter as a point in ``player``'s numbering (25 = bar, 0 = off)."""
    if letter == _BAR:
        return 25
    if letter == _OFF:
        return 0
    i = ord(letter) - ord("a")
    return i + 1 if player == 0 else 24 - i


def _letter(point: int, player: int) -> str:
    if point == 25:
        return _BAR
    if point == 0:
        return _OFF
    return chr(ord("a") + (point - 1 if player == 0 else 24 - point))


def _after(position: Position, pairs: str, player: int) -> Position:
    """The position (mover's view) after the moves of ``pairs``."""
    mine, theirs = list(position.mine), list(position.theirs)
    for k in range(0, len(pairs), 2):
        src, dst = _point(pairs[k], player), _point(pairs[k + 1], player)
        if src == 0 or dst == 25 or mine[src - 1] == 0:
            raise _Cut(f"the move {pairs[k : k + 2]!r} cannot be made")
        mine[src - 1] -= 1
        if dst:
            mine[dst - 1] += 1
            if theirs[24 - dst] == 1:
                theirs[24 - dst] = 0
                theirs[24] += 1
    try:
        return Position(mine, theirs)
    except PulvezarError as e:
        raise _Cut(str(e)) from None


def position_after_move(position: Position, move: str, player: int) -> Position:
    """The position (mover's view) after an SGF move value such as ``"hgeb"`` by ``player`` (0 or 1).

    Raises :class:`~pulvezar.errors.PulvezarError` (field ``move``) when the move cannot be made.
    """
    try:
        return _after(position, move, player)
    except _Cut as e:
        raise PulvezarError(str(e), field="move") from None


@dataclass(slots=True)
class _Reader:
    record: MatchRecord
    rec: GameRecord
    game: Game
    result: tuple[int, int, bool] | None  # RE: winner, points, resigned
    limits: Limits = DEFAULT_LIMITS
    clamped: bool = False  # a resignation was read at a lower level than its points

    def act(self, action: Action) -> None:
        apply_action(self.game, action)
        self.rec.actions.append(action)

    def roll(self, player: int, dice: tuple[int, int], props: Props) -> None:
        g = self.game
        if g.phase is Phase.OPENING:
            if dice[0] == dice[1]:
                raise _Cut("a double as the opening roll")
        elif g.phase is not Phase.ROLL or g.turn != player:
            raise _Cut("a roll out of turn")
        self.act(Action(player, "roll", dice=dice, props=props))

    def move(self, player: int, value: str, props: Props, nodes: list[SgfNode], i: int) -> int:
        """Apply one ``W[...]``/``B[...]`` value; returns how many extra nodes it used."""
        g = self.game
        m = _MOVE_VALUE.fullmatch(value)
        if m:
            dice = (int(m.group(1)), int(m.group(2)))
            if not (g.phase is Phase.MOVE and g.turn == player and g.dice == dice):
                self.roll(player, dice, {})
            assert g.dice is not None
            plays = g.rules.legal_plays(g.position, g.dice)
            try:
                play = plays[plays.index_of(_after(g.position, m.group(3), player))]
            except ValueError:
                raise _Cut(f"{value!r} is not a legal play") from None
            self.act(Action(player, "play", notation=play.notation, props=props))
            return 0
        if value in ("double", "beaver", "raccoon") and g.phase in (Phase.DOUBLED, Phase.BEAVERED):
            kind: ActionKind = "beaver" if g.phase is Phase.DOUBLED else "raccoon"
            if player != _answerer(g) or value not in ("double", kind):
                raise _Cut(f"a {value} out of turn")
            self.act(Action(player, kind, value=(4 if kind == "beaver" else 8) * g.cube_value, props=props))
            return 0
        if value in ("double", "take", "drop"):
            answerer = _answerer(g) if g.phase in (Phase.DOUBLED, Phase.BEAVERED, Phase.RACCOONED) else None
            if player != (g.turn if value == "double" else answerer):
                raise _Cut(f"a {value} out of turn")
            kind = "double" if value == "double" else "take" if value == "take" else "drop"
            self.act(Action(player, kind, value=2 * g.cube_value if kind == "double" else 0, props=props))
            return 0
        r = _RESIGN.fullmatch(value)
        if r:
            line = nodes[i].line
            points = (
                parse_int(r.group(1), "the points resigned", self.limits, line=line) if r.group(1) else None
            )
            self.resign(player, points, line, props)
            return 0
        if value in ("accept", "reject"):
            if g.phase is not Phase.RESIGNED or g.resigner == player:
                raise _Cut(f"{'an' if value == 'accept' else 'a'} {value} without a resignation")
            self.act(Action(player, "accept" if value == "accept" else "reject", props=props))
            return 0
        raise _Cut(f"cannot read the move {value!r}")

    def node(self, nodes: list[SgfNode], i: int) -> int:
        nd = nodes[i]
        props = dict(nd.props)
        if self.game.phase is Phase.OVER:
            raise _Cut("a node after the end of the game")
        setup = [k for k in _SETUP if k in props]
        if setup:
            if any(a.kind != "roll" for a in self.rec.actions):
                raise _Cut(f"a set-up node ({', '.join(setup)}) after a decision of the game")
            self.set_up(props)
            return 0
        colour = [c for c in _COLOUR if c in props]
        if len(colour) > 1:
            raise _Cut("a node with moves of both players")
        if colour:
            value = props.pop(colour[0])
            if len(value) != 1:
                raise _Cut("a move node with several values")
            return self.move(_COLOUR.index(colour[0]), value[0].strip(), props, nodes, i)
        if "DI" in props:
            pl = props.pop("PL", [_COLOUR[self.game.turn]])
            di = props.pop("DI")
            if pl[0] not in _COLOUR or len(di) != 1 or not re.fullmatch(r"[1-6]{2}", di[0]):
                raise _Cut(f"cannot read the dice PL{pl}DI{di}")
            self.roll(_COLOUR.index(pl[0]), (int(di[0][0]), int(di[0][1])), props)
            return 0
        if "PL" in props and props["PL"] != [_COLOUR[self.game.turn]]:
            raise _Cut("a set-up node (PL) gives the turn to the other player")
        raise _Cut("a node without a move")

    def set_up(self, props: Props) -> None:
        """Apply a set-up node: the game starts again from the board, turn and cube it leaves."""
        g = self.game
        board = [list(g.position.mine), list(g.position.theirs)]  # [player on turn, other]
        sides = {g.turn: board[0], 1 - g.turn: board[1]}  # player -> checkers in its own numbering
        for letter in _letters(props.get("AE", [])):
            for player in (0, 1):
                p = _point(letter, player)
                if p:
                    sides[player][p - 1] = 0
        for player, key in enumerate(_COLOUR):
            for letter in _letters(props.get("A" + key, [])):
                p = _point(letter, player)
                if not p:
                    raise _Cut(f"a set-up checker 'off' ({letter!r})")
                sides[player][p - 1] += 1
        turn = _COLOUR.index(props["PL"][0]) if props.get("PL", [""])[0] in ("W", "B") else g.turn
        cube, owner = g.cube_value, g.cube_owner
        if "CV" in props:
            if not props["CV"][0].strip().isdecimal():
                raise _Cut(f"cannot read the cube value CV{props['CV'][:1]!r:.60}")
            cube = parse_int(props["CV"][0], "the cube value CV", self.limits, line=0)
        if "CP" in props:
            owners = {"c": None, "w": 0, "b": 1}
            if props["CP"][0].strip().lower() not in owners:
                raise _Cut(f"cannot read the cube owner CP{props['CP']}")
            owner = owners[props["CP"][0].strip().lower()]
        try:
            position = Position(sides[turn], sides[1 - turn])
            self.rec.setup = Setup(position, turn, cube, owner)
        except PulvezarError as e:
            raise _Cut(f"the set-up position: {e}") from None
        self.rec.actions.clear()  # rolls before a set-up (gnubg writes one) belong to no game
        self.game = self.record.new_game(self.rec)

    def resign(self, player: int, points: int | None, line: int, props: Props | None = None) -> None:
        """``player`` resigns ``points`` (at the lowest level that reaches them, as ``.mat`` does)."""
        g = self.game
        if g.phase not in (Phase.ROLL, Phase.MOVE):
            raise _Cut(f"a resignation while the game is at {g.phase.value}")
        top = g.resignation_levels(player)[-1]
        wanted = max(1, -(-(points or g.cube_value) // g.cube_value))
        level = min(wanted, top)
        if wanted > level:
            self.clamped = True
            self.rec.notes.append(
                f"line {line}: {points} points on a {g.cube_value}-cube are more than the rules allow"
                f" here; read as a level-{level} resignation"
            )
        self.act(Action(player, "resign", value=level, props=props or {}))

    def finish(self, line: int) -> None:
        g, rec, said = self.game, self.rec, self.result
        if rec.cut_at is None and g.phase is not Phase.OVER and said is not None:
            winner, points, _ = said
            try:
                if g.phase is Phase.RESIGNED and g.resigner == 1 - winner:
                    self.act(Action(winner, "accept"))
                elif points:
                    self.resign(1 - winner, points, line)
                    self.act(Action(winner, "accept"))
            except (_Cut, PulvezarError) as e:
                rec.notes.append(f"line {line}: RE[{_COLOUR[winner]}+{points}] does not fit the game: {e}")
        if g.phase is Phase.OVER:
            assert g.winner is not None
            rec.winner, rec.points = g.winner, g.points
            if said is not None and said[0] != g.winner:
                rec.notes.append(f"RE says player {said[0]} wins, the replay player {g.winner}")
            elif (
                said is not None
                and not self.clamped
                and said[1] not in (g.points, rec.credited(self.record.length))
            ):
                rec.notes.append(f"RE says {said[1]} points, the replay {g.points}")
        elif said is not None:
            rec.winner, rec.points = said[0], said[1]
        if rec.winner is not None:
            shown = said[1] if said is not None and said[0] == rec.winner else rec.points
            rec.actions.append(Action(rec.winner, "win", value=shown))


def _letters(values: list[str]) -> list[str]:
    """Point letters of set-up values, compressed ranges (``a:y``) expanded."""
    out: list[str] = []
    for v in values:
        v = v.strip()
        if re.fullmatch(r"[a-z]:[a-z]", v):
            out += [chr(c) for c in range(ord(v[0]), ord(v[2]) + 1)]
        elif re.fullmatch(r"[a-z]", v):
            out.append(v)
        else:
            raise _Cut(f"cannot read the set-up point {v!r}")
    return out


def _answerer(game: Game) -> int:
    """Who answers the cube on offer: the doubled player, or after a beaver the doubler."""
    return game.turn if game.phase is Phase.BEAVERED else 1 - game.turn


def _options(trees: list[SgfTree]) -> SessionOptions:
    """A money session's rules: ``Jacoby`` in the first game's ``RU``; beavers where the file has one."""
    ru = trees[0].nodes[0].props.get("RU", [""])[0].lower().split(":")
    beaver = False
    for tree in trees:
        values = [v for nd in tree.main_line() for c in _COLOUR for v in nd.props.get(c, [])[:1]]
        beaver = beaver or any(
            a.strip() == "double" and b.strip() in ("double", "beaver") for a, b in itertools.pairwise(values)
        )
    return SessionOptions(jacoby="jacoby" in ru, beaver=beaver, raccoon=beaver)


def _mi(values: list[str], limits: Limits, line: int) -> tuple[dict[str, int], list[str]]:
    known: dict[str, int] = {}
    extra: list[str] = []
    for v in values:
        key, _, val = v.partition(":")
        if key in ("length", "game", "ws", "bs") and val.strip().isdecimal():
            known[key] = parse_int(val, f"MI[{key}]", limits, line=line)
        else:
            extra.append(v)
    return known, extra


def read_sgf(data: str | bytes, *, limits: Limits | None = None) -> MatchRecord:
    """Read a backgammon SGF collection (``bytes``: by its ``CA``, else UTF-8, else Latin-1).

    Raises :class:`MatchFileError` on text that is not SGF or not backgammon,
    its :class:`~pulvezar.formats.limits.FileTooLargeError` beyond a cap of
    ``limits`` (bytes, nesting, nodes, games, nodes per game, digits).
    Games are replayed through the match model and cut (``cut_at``) at the
    first node they cannot follow; the game's result then comes from ``RE``.
    """
    limits = limits or DEFAULT_LIMITS
    check_bytes(len(data), limits)
    trees = parse_sgf(_decode(data), limits=limits)
    check_count("max_games", len(trees), limits, "games")
    record = MatchRecord()
    crawford_done = False
    for gi, tree in enumerate(trees):
        nodes = tree.main_line()
        check_count("max_actions", len(nodes) - 1, limits, "nodes in a game", line=nodes[0].line)
        root = dict(nodes[0].props)

        if root.get("GM", ["6"]) != ["6"]:
            raise MatchFileError(f"GM{root['GM']} is not backgammon (GM[6])", line=nodes[0].line)
        known, extra = _mi(root.pop("MI", []), limits, nodes[0].line)
        names = (root.pop("PW", [""])[0], root.pop("PB", [""])[0])
        if gi == 0:
            record.length = known.get("length", 0)
            record.players = names
            if not record.length:
                record.options = _options(trees)
        prev = record.games[-1] if record.games else None
        score = (
            (known["ws"], known["bs"])
            if "ws" in known and "bs" in known
            else (prev.score_after(record.length) if prev else (0, 0))
        )
        rec = GameRecord(number=known.get("game", gi) + 1, score=score)
        if extra:
            rec.props["MI"] = extra
        if len(tree.children) > 1:
            rec.notes.append(
                f"line {nodes[0].line}: only the main line of {len(tree.children)} variations is read"
            )
        result = _result(root.pop("RE", [""])[0], rec, limits, nodes[0].line)
        ru = root.get("RU", [""])[0].split(":")
        if gi == 0 and ru[0].strip().lower() == _TAVLA.lower():
            _read_tavla(record, ru, root)
        if not record.rules.uses_cube and root.get("RU") == [_tavla_ru(record.rules)]:
            del root["RU"]  # write_sgf writes it again
        if ru[0].lower() not in ("", "crawford") or "PostCrawfordGame" in ru:
            crawford_done = True
        # a 1-point match has no Crawford game (both sides start 1-away; gnubg agrees)
        late = record.length > 1 and not crawford_done and record.length - 1 in score
        if record.length and ("CrawfordGame" in ru or late):
            rec.crawford = crawford_done = True
        if record.length and root.get("RU") == [_default_rules(rec)]:
            del root["RU"]  # write_sgf writes it again
        for key, values in root.items():
            if key in _STRUCTURAL:
                continue
            if gi == 0 and key not in _GAME_ROOT and len(values) == 1:
                record.tags[key] = values[0]
            else:
                rec.props[key] = values
        reader = _Reader(record, rec, record.new_game(rec), result, limits)
        i = 1
        while i < len(nodes):
            try:
                i += reader.node(nodes, i) + 1
            except _Cut as e:
                rec.cut_at = f"line {nodes[i].line}: {e}"
            except PulvezarError as e:
                rec.cut_at = f"line {nodes[i].line}: {e}"
            if rec.cut_at is not None:
                rec.props[_TAIL] = [_node_text(nd.props) for nd in nodes[i:]]
                break
        reader.finish(nodes[-1].line)
        record.games.append(rec)
    return record


def _read_tavla(record: MatchRecord, ru: list[str], root: Props) -> None:
    """The Tavla rules of ``RU[Tavla:...]`` as the record's tags; the first root's note dropped."""
    record.tags["Variation"] = _TAVLA
    for part in ru[1:]:
        tag = _TAVLA_OPTIONS.get(part.strip().lower())
        if tag:
            record.tags[tag] = "On"
    comment = root.get("C", [""])[0]
    if comment.startswith(TAVLA_NOTE):
        rest = comment[len(TAVLA_NOTE) :].lstrip("\n")
        if rest:
            root["C"] = [rest]
        else:
            del root["C"]


def _tavla_ru(rules: Rules) -> str:
    """A Tavla game's ``RU``: ``Tavla`` and its options."""
    on = [
        tag
        for tag, flag in (("HitAndStop", rules.hit_and_stop), ("MustBearOff", rules.must_bear_off))
        if flag
    ]
    return ":".join([_TAVLA, *on])


def _default_rules(rec: GameRecord) -> str:
    """The ``RU`` gnubg writes for a game of a match."""
    return "Crawford:CrawfordGame" if rec.crawford else "Crawford"


def _result(text: str, rec: GameRecord, limits: Limits, line: int) -> tuple[int, int, bool] | None:
    text = text.strip()
    if not text or text in ("0", "?", "Void"):
        return None
    m = _RESULT.match(text)
    if not m:
        rec.notes.append(f"cannot read the result RE[{text}]")
        return None
    points = parse_int(m.group(2), "the points of RE", limits, line=line) if m.group(2) else 0
    return _COLOUR.index(m.group(1).upper()), points, m.group(3) is not None


# ---- writing -------------------------------------------------------------------------


def write_sgf(record: MatchRecord) -> str:
    """SGF text that gnubg reads: one game tree per game, gnubg's node forms.

    A resignation is written as gnubg does, in ``RE`` only (``W+2R``); a roll
    with no play after it as ``PL``/``DI``.  Tags that are not SGF property
    names are written under their SGF name where there is one (``Event`` ->
    ``EV``, ...) and dropped otherwise.  A Tavla match (its ``Variation`` tag)
    is written with ``RU[Tavla...]`` in every game and :data:`TAVLA_NOTE` in the
    first root's comment: gnubg cannot read it, :func:`read_sgf` can.
    """
    tags: Props = {}
    for key, value in record.tags.items():
        ident = key if re.fullmatch(r"[A-Z]{1,8}", key) else _MAT_TAGS.get(key)
        if ident and ident not in _STRUCTURAL:
            tags[ident] = [value]
    ap = tags.pop("AP", ["pulvezar"])
    rules = record.rules
    tavla = not rules.uses_cube
    if tavla:
        tags["C"] = ["\n\n".join([TAVLA_NOTE, *tags.get("C", [])])]
    out: list[str] = []
    for gi, rec in enumerate(record.games):
        root: Props = {"FF": ["4"], "GM": ["6"], "CA": ["UTF-8"], "AP": ap}
        mi = [f"length:{record.length}", f"game:{rec.number - 1}", f"ws:{rec.score[0]}", f"bs:{rec.score[1]}"]
        root["MI"] = mi + rec.props.get("MI", [])
        root["PW"], root["PB"] = [record.players[0]], [record.players[1]]
        if gi == 0:
            root.update(tags)
        if "RU" not in rec.props and tavla:
            root["RU"] = [_tavla_ru(rules)]
        elif "RU" not in rec.props and record.length:
            root["RU"] = [_default_rules(rec)]
        elif "RU" not in rec.props and record.options.jacoby:
            root["RU"] = ["Jacoby"]
        if rec.winner is not None:
            resigned = any(a.kind == "accept" for a in rec.actions)
            shown = next((a.value for a in rec.actions if a.kind == "win"), rec.points)
            root["RE"] = [f"{_COLOUR[rec.winner]}+{shown}{'R' if resigned else ''}"]
        root.update({k: v for k, v in rec.props.items() if k not in ("MI", _TAIL)})
        lines = ["(" + _node_text(root)]
        if rec.setup is not None:
            lines += _setup_nodes(rec.setup)
        lines += _game_nodes(record, rec)
        lines += rec.props.get(_TAIL, [])
        out.append("\n".join(lines) + ")")
    return "\n".join(out) + "\n"


def _game_nodes(record: MatchRecord, rec: GameRecord) -> list[str]:
    game = record.new_game(rec)
    nodes: list[str] = []
    pending: Action | None = None  # a roll waiting for its play
    for i, a in enumerate(rec.actions):
        if a.kind == "win":
            continue
        if pending is not None and a.kind != "play":
            nodes.append(_dice_node(pending))
            pending = None
        if a.kind == "roll":
            pending = a
        elif a.kind == "play":
            # (no roll pending: the play after a rejected resignation, with the dice rolled before it)
            assert game.dice is not None
            dice = pending.dice if pending is not None and pending.dice is not None else game.dice
            plays = game.rules.legal_plays(game.position, game.dice)
            play = plays.find(a.notation or "")
            move = f"{dice[0]}{dice[1]}{move_letters(play, a.player)}"
            nodes.append(
                _node_text({_COLOUR[a.player]: [move], **(pending.props if pending else {}), **a.props})
            )
            pending = None
        elif a.kind in ("double", "take", "drop", "reject"):
            nodes.append(_node_text({_COLOUR[a.player]: [a.kind], **a.props}))
        elif a.kind in ("beaver", "raccoon"):  # gnubg's form: a double while one is pending
            nodes.append(_node_text({_COLOUR[a.player]: ["double"], **a.props}))
        elif a.kind == "resign" and i + 1 < len(rec.actions) and rec.actions[i + 1].kind == "reject":
            points = f"resign:{a.value * game.cube_value}"  # Gibbon's form: RE cannot hold it
            nodes.append(_node_text({_COLOUR[a.player]: [points], **a.props}))
        elif a.props:  # resign / accept: in RE only; keep what a file recorded beside them
            nodes.append(_node_text(a.props))
        apply_action(game, a)
    if pending is not None:
        nodes.append(_dice_node(pending))
    return nodes


def _setup_nodes(setup: Setup) -> list[str]:
    """gnubg's set-up nodes: the board (cleared, then each checker), the turn, the cube."""
    sides = {setup.turn: setup.position.mine, 1 - setup.turn: setup.position.theirs}
    props: Props = {"PL": [_COLOUR[setup.turn]], "AE": ["a:y"]}
    for player in (0, 1):
        props["A" + _COLOUR[player]] = [
            _letter(p + 1, player) for p in range(25) for _ in range(sides[player][p])
        ]
    owner = "c" if setup.cube_owner is None else _COLOUR[setup.cube_owner].lower()
    return [_node_text(props), _node_text({"CV": [str(setup.cube_value)]}), _node_text({"CP": [owner]})]


def move_letters(play: Play, player: int) -> str:
    """A play as gnubg's SGF letter pairs ("from to", in ``player``'s colour; gnubg's order)."""
    moves = sorted(play.moves, key=lambda m: (-m.src, -m.dst))
    return "".join(_letter(m.src, player) + _letter(m.dst, player) for m in moves)


# ---- annotated export ----------------------------------------------------------------

ANALYSIS_PROPS = frozenset({"A", "DA", "LU", "BM", "DO", "TE", "IT", "GB", "GW", "MR"})
"""gnubg's analysis and mark properties of a move node; an annotated export replaces them."""


def annotate(record: MatchRecord, annotations: dict[tuple[int, int], Props]) -> MatchRecord:
    """A copy of ``record`` whose actions carry the given properties.

    ``annotations`` maps (game index, action index) to SGF properties.  An
    annotated action loses the analysis properties it had
    (:data:`ANALYSIS_PROPS`) and keeps the others; a new ``C`` comes after an
    old one.  A play's roll loses its analysis properties too (they share the
    node).
    """
    games = []
    for gi, rec in enumerate(record.games):
        acts = list(rec.actions)
        for ai, a in enumerate(acts):
            new = annotations.get((gi, ai))
            if new is None:
                continue
            kept = {k: v for k, v in a.props.items() if k not in ANALYSIS_PROPS}
            comment = kept.pop("C", []) + new.get("C", [])
            props = {**kept, **{k: v for k, v in new.items() if k != "C"}}
            if comment:
                props["C"] = ["\n".join(comment)]
            acts[ai] = replace(a, props=props)
            if a.kind == "play" and ai > 0 and acts[ai - 1].kind == "roll":
                roll = acts[ai - 1]
                acts[ai - 1] = replace(
                    roll, props={k: v for k, v in roll.props.items() if k not in ANALYSIS_PROPS}
                )
        games.append(replace(rec, actions=acts, notes=list(rec.notes), props=dict(rec.props)))
    return replace(record, games=games, tags=dict(record.tags), comments=list(record.comments))


def write_annotated_sgf(record: MatchRecord, annotations: dict[tuple[int, int], Props]) -> str:
    """:func:`write_sgf` of :func:`annotate`: the record with the given properties on its nodes."""
    return write_sgf(annotate(record, annotations))


def _dice_node(roll: Action) -> str:
    """gnubg's node for a roll with no play after it."""
    assert roll.dice is not None
    return _node_text({"PL": [_COLOUR[roll.player]], "DI": [f"{roll.dice[0]}{roll.dice[1]}"], **roll.props})
