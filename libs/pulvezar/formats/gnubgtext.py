"""GNU Backgammon's text export of games (``export game text`` / ``export match text``).

Each game starts with a score line, ``The score (after N games) is: A x, B y
(match to L points)`` (``, Crawford game`` for the Crawford game; no ``(match
to ...)`` in a money session), then an optional ``Match Information:`` block of
``Key: value`` lines (kept as tags).  Then one record per decision:

* ``Move number N:  NAME to play 31`` -- a play, written ``* NAME moves 8/5 6/5``
  or ``* NAME cannot move``;
* ``Move number N:  NAME on roll, cube decision?`` -- ``* NAME doubles``;
* ``Move number N:  NAME doubles to 2`` -- the answer, ``* OTHER accepts`` or
  ``* OTHER rejects``;

each with a board diagram whose ``Position ID:`` and ``Match ID   :`` lines
give the state before the decision, and after the ``*`` line gnubg's analysis
(``Cube analysis``, ``Rolled 31:`` candidate lists, alerts), kept verbatim in
the action's ``props["gnubg_analysis"]``.  The game ends with ``NAME wins N
points`` and ``Game statistics for game N`` (kept in the game's
``props["gnubg_statistics"]``).

The first name of the score line is gnubg's player 0 (``O``), the second its
player 1 (``X``); the record keeps that order.  Games are replayed through the
match model like the other readers: a game is cut (``cut_at``) at the first
record the rules do not allow, and the rest of it is skipped.  At every decision
the replay's Position ID and Match ID must be the file's; a difference raises
:class:`IdMismatchError` (``strict=False``: the game is cut there instead).
gnubg's Match ID holds the dice of a play record (in the order the heading
writes them, except that where a game imported from a ``.mat`` file has the
smaller die first, "to play 13", the Match ID holds the larger first) and none
for a cube or take decision, as :func:`pulvezar.formats.record.match_id_of` does.  One convention differs:
the first record of a game (the opening roll's play) carries game state 0, "no
game" -- gnubg takes that state before the game has started -- where the
replay's is 1, "playing"; the check reads the first record's state 0 as 1.

gnubg writes no record for a resignation: a game that ends with ``NAME wins N
points`` where the replay has not ended was resigned by the other player before
their next roll, at level N / cube (gnubg's figure is not capped at the match),
and accepted.

>>> rec = read_gnubg_text('''The score (after 0 games) is: Ann 0, Bob 0 (match to 3 points)
...
... Move number 1:  Ann to play 31
...
...  GNU Backgammon  Position ID: 4HPwATDgc/ABMA
...                  Match ID   : MIBlAAAAAAAE
...
... * Ann moves 8/5 6/5
...
... Rolled 31:
... *    1. Cubeful 2-ply    8/5 6/5                      Eq.: +0.217
...        0.551 0.170 0.009 - 0.449 0.117 0.005
...
... Ann wins 1 point
... ''')
>>> rec.players, rec.length, [(a.player, a.kind) for a in rec.games[0].actions]
(('Ann', 'Bob'), 3, [(0, 'roll'), (0, 'play'), (1, 'resign'), (0, 'accept'), (0, 'win')])
>>> play = rec.games[0].actions[1]
>>> play.notation, play.props["gnubg_equity"], play.props["gnubg_probabilities"][0]
('8/5 6/5', ['+0.217'], '0.551')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from pulvezar.errors import AmbiguousPlayError, PulvezarError
from pulvezar.formats.limits import DEFAULT_LIMITS, Limits, check_bytes, check_count, parse_int, split_lines
from pulvezar.formats.record import Action, GameRecord, MatchFileError, MatchRecord, apply_action, match_id_of
from pulvezar.match.game import Game, Phase
from pulvezar.rules.matchid import GameState, MatchId
from pulvezar.rules.rules import LegalPlays, Play

__all__ = ["IdMismatchError", "find_gnubg_play", "is_gnubg_text", "read_gnubg_text"]

# a score line, read in three linear steps: head, tail (one greedy group), then the first " N, "
_SCORE_HEAD = re.compile(r"The score \(after (\d+) games?\) is: ")
_SCORE_TAIL = re.compile(
    r"(.*) (\d+)(?: \(match to (\d+) points?\))?(?:, (Crawford game|post-Crawford play))?\s*"
)
_SCORE_FIRST = re.compile(r" (\d+), ")
_MOVE = re.compile(r"Move number (\d+):\s+(.*)")  # the heading: the rest, right-stripped
_DICE = re.compile(r"to play ([1-6])([1-6])$")
_DOUBLES_TO = re.compile(r"doubles to (\d+)$")
_POSITION_ID = re.compile(r"\s*(?:GNU Backgammon\s+)?Position ID:\s*(\S+)\s*$")
_MATCH_ID = re.compile(r"\s*Match ID\s*:\s*(\S+)\s*$")
_WINS = re.compile(r"wins (\d+) points?(?: and the match)?\s*$")
_INFO = re.compile(r"([^:]+):\s*(.*)")  # the value: the rest, right-stripped
# a candidate line "* N. EVAL  MOVE  Eq.: +x (-y)", read in linear steps (see _candidate)
_CANDIDATE_HEAD = re.compile(r"\*\s+(\d+)\.\s+(?=\S)")
_CANDIDATE_TAIL = re.compile(r"\s+Eq\.:\s+([+-]?\d+\.\d+)(?:\s+\(([+-]?\d+\.\d+)\))?\s*")
_GAP = re.compile(r"\s{2,}")
_PROBABILITIES = re.compile(r"\s+(\d\.\d+) (\d\.\d+) (\d\.\d+) - (\d\.\d+) (\d\.\d+) (\d\.\d+)\s*$")
_CUBE_ACTION = re.compile(r"Proper cube action:\s*(.*)")  # the action: the rest, right-stripped
_VERBS = {
    "moves": "play",
    "cannot move": "play",
    "doubles": "double",
    "accepts": "answer",
    "rejects": "answer",
}
# linear: no "\s*" that could run over a run of newlines from every line start
_SNIFF = re.compile(
    r"^[^\S\n]*The score \(after \d+ games?\) is:|Position ID:[^\S\n]*\S{1,64}[^\S\n]*\n\s*Match ID\s*:", re.M
)


class IdMismatchError(MatchFileError):
    """The replay's Position ID or Match ID before a decision is not the file's.

    ``expected``: the file's ``PositionID:MatchID``; ``found``: the replay's.
    """

    def __init__(self, message: str, *, line: int, expected: str, found: str) -> None:
        super().__init__(message, line=line)
        self.expected = expected
        self.found = found


@dataclass(slots=True)
class _Record:
    """One ``Move number`` record, read but not yet replayed."""

    kind: str  # play, double, answer
    player: int  # the heading's player: the mover, the doubler
    line: int
    dice: tuple[int, int] | None = None
    ids: tuple[str, str, int] | None = None  # Position ID, Match ID, line of the Match ID
    position_id: tuple[str, int] | None = None
    actor: int = 0
    verb: str = ""  # moves, cannot move, doubles, accepts, rejects
    notation: str = ""
    action_line: int = 0
    analysis: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Game:
    record: GameRecord
    line: int
    records: list[_Record] = field(default_factory=list)
    win: tuple[int, int, int] | None = None  # player, points, line
    statistics: list[str] = field(default_factory=list)


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


def is_gnubg_text(data: str | bytes) -> bool:
    """Whether ``data`` looks like gnubg's text export (a score line first, or Position/Match ID lines)."""
    head = _decode(data[:65536])
    return _SNIFF.search(head) is not None


def _score(line: str) -> tuple[str, str, str, str, str, str | None, str | None] | None:
    """A score line's game count, names, scores, match length and Crawford note (the old one-regex form's
    groups: the first ``" N, "`` after the first name, the last ``" N"`` before the optional notes)."""
    head = _SCORE_HEAD.match(line)
    if head is None:
        return None
    tail = _SCORE_TAIL.fullmatch(line, head.end())
    if tail is None:
        return None
    left = tail.group(1)
    first = _SCORE_FIRST.search(left, 1)
    while first is not None and first.end() >= len(left):  # the second name is empty: a later " N, "
        first = _SCORE_FIRST.search(left, first.start() + 1)
    if first is None:
        return None
    name1, name2 = left[: first.start()], left[first.end() :]
    return head.group(1), name1, first.group(1), name2, tail.group(2), tail.group(3), tail.group(4)


def split_candidate(
    line: str, head: re.Match[str] | None, markers: Sequence[str], tail_pattern: re.Pattern[str]
) -> tuple[str, str, re.Match[str]] | None:
    """A candidate line cut after its ``head`` match: the evaluation (up to the first run of two spaces),
    the move (up to the last of ``markers``, e.g. ``Eq.:``) and the ``tail_pattern`` match from there;
    linear, no nested lazy groups (gnubg's text export and its stored analyses share the layout)."""
    eq = max(line.rfind(m) for m in markers)
    if head is None or eq < 0:
        return None
    start = eq
    while start > head.end() and line[start - 1].isspace():
        start -= 1
    tail = tail_pattern.fullmatch(line, start)
    if tail is None or start <= head.end():
        return None
    middle = line[head.end() : start]
    gap = _GAP.search(middle)
    if gap is None:
        return None
    return middle[: gap.start()], middle[gap.end() :], tail


def _candidate(line: str) -> tuple[str, str, str, str, str | None] | None:
    """A candidate line's rank, evaluation, move, equity and equity loss."""
    head = _CANDIDATE_HEAD.match(line)
    cut = split_candidate(line, head, ("Eq.:",), _CANDIDATE_TAIL)
    if head is None or cut is None:
        return None
    evaluation, move, tail = cut
    return head.group(1), evaluation, move, tail.group(1), tail.group(2)


def _block(lines: list[str]) -> str:
    """Lines joined, leading and trailing blank lines dropped."""
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return "\n".join(lines[start:end])


def _props(analysis: list[str]) -> dict[str, list[str]]:
    """The analysis verbatim; the chosen candidate's evaluation and the proper cube action where written."""
    text = _block(analysis)
    props: dict[str, list[str]] = {"gnubg_analysis": [text]} if text else {}
    for i, line in enumerate(analysis):
        if (c := _candidate(line)) and "gnubg_move" not in props:
            props["gnubg_rank"] = [c[0]]
            props["gnubg_eval"] = [c[1]]
            props["gnubg_move"] = [c[2]]
            props["gnubg_equity"] = [c[3]]
            if c[4] is not None:
                props["gnubg_equity_loss"] = [c[4]]
            if i + 1 < len(analysis) and (p := _PROBABILITIES.match(analysis[i + 1])):
                props["gnubg_probabilities"] = list(p.groups())
        elif (m := _CUBE_ACTION.match(line)) and "gnubg_cube_action" not in props:
            props["gnubg_cube_action"] = [m.group(1).rstrip()]
    return props


class _Reader:
    """Reads the texts of one match into games of records."""

    def __init__(self, record: MatchRecord, prefix: str, limits: Limits) -> None:
        self.record, self.prefix, self.limits = record, prefix, limits
        self.games: list[_Game] = []

    def error(self, message: str, line: int, column: int = 1) -> MatchFileError:
        return MatchFileError(self.prefix + message, line=line, column=column)

    def player(self, text: str, line: int, column: int) -> tuple[int, str]:
        """The player whose name starts ``text`` (the longer name first), and the rest of the text."""
        names = self.record.players
        for p in sorted((0, 1), key=lambda p: -len(names[p])):
            if text.startswith(names[p] + " "):
                return p, text[len(names[p]) + 1 :].strip()
        raise self.error(f"expected a player ({names[0]!r} or {names[1]!r}), got {text!r}", line, column)

    def read(self, text: str) -> None:
        section = ""  # info, board, analysis, end, stats, generator
        game: _Game | None = None
        rec: _Record | None = None
        generator: list[str] = []  # "Output generated ... by GNU Backgammon ..."
        for n, raw in enumerate(split_lines(text, self.limits), start=1):
            line = raw.rstrip()
            if score := _score(line):
                check_count("max_games", len(self.games) + 1, self.limits, "games", line=n)
                game = self.start_game(score, n)
                section, rec = "", None
                continue
            if game is None:
                if not line.strip():
                    continue
                raise self.error(f"expected 'The score (after N games) is: ...', got {line.strip()!r}", n)
            if line == "Match Information:" and not game.records:
                section = "info"
                continue
            if section == "info":
                if not line.strip():
                    section = ""
                elif info := _INFO.match(line):
                    self.record.tags[info.group(1).strip()] = info.group(2).rstrip()
                else:
                    raise self.error(f"expected 'Key: value' in the match information, got {line!r}", n)
                continue
            if m := _MOVE.match(line):
                if rec is not None and not rec.verb:
                    raise self.error("a record without its '* NAME ...' line", rec.line)
                if game.win is not None:
                    raise self.error("a record after the end of the game", n)
                rec = self.heading(m.group(2).rstrip(), n, m.start(2) + 1)
                check_count("max_actions", len(game.records) + 1, self.limits, "records in a game", line=n)
                game.records.append(rec)
                section = "board"
                continue
            if section == "board":
                assert rec is not None
                if pid := _POSITION_ID.match(line):
                    rec.position_id = (pid.group(1), n)
                elif mid := _MATCH_ID.match(line):
                    if rec.position_id is None:
                        raise self.error("a Match ID without a Position ID before it", n)
                    rec.ids = (rec.position_id[0], mid.group(1), n)
                elif line.startswith("* ") and not line[2:3].isspace():
                    self.action(rec, line, n)
                    section = "analysis"
                continue  # the rest of the board diagram
            if section in ("analysis", "") and (win := self.wins(line, n)) is not None:
                if rec is not None and not rec.verb:
                    raise self.error("a record without its '* NAME ...' line", rec.line)
                game.win = win
                section, rec = "end", None
                continue
            if line.startswith("Game statistics for game"):
                section = "stats"
                game.statistics.append(raw)
                continue
            if line.startswith("Output generated"):
                generator = [line.strip()]
                section = "generator"
                continue
            if section == "generator":
                if line.strip():
                    generator.append(line.strip())
                    continue
                self.comment(" ".join(generator))
                section = ""
                continue
            if section == "analysis":
                assert rec is not None
                rec.analysis.append(raw)
                continue
            if section == "stats":
                game.statistics.append(raw)
                continue
            if line.strip():
                raise self.error(f"unexpected text {line.strip()!r}", n)
        if section == "generator":
            self.comment(" ".join(generator))
        if rec is not None and not rec.verb:
            raise self.error("a record without its '* NAME ...' line", rec.line)

    def comment(self, text: str) -> None:
        if text not in self.record.comments:
            self.record.comments.append(text)

    def start_game(self, m: tuple[str, str, str, str, str, str | None, str | None], line: int) -> _Game:
        count, name1, score1, name2, score2, match_to, crawford = m

        def number(digits: str, what: str) -> int:
            return parse_int(digits, what, self.limits, line=line)

        players = (name1, name2)
        length = number(match_to, "the match length") if match_to else 0
        if not self.games and not any(self.record.players):
            self.record.players, self.record.length = players, length
        elif players != self.record.players:
            raise self.error(f"players {players} in a match of {self.record.players}", line)
        elif length != self.record.length:
            raise self.error(f"a {length}-point game in a {self.record.length}-point match", line)
        rec = GameRecord(
            number=number(count, "the game count") + 1,
            score=(number(score1, "a score"), number(score2, "a score")),
            crawford=crawford == "Crawford game",
        )
        game = _Game(rec, line)
        self.games.append(game)
        return game

    def heading(self, text: str, line: int, column: int) -> _Record:
        player, rest = self.player(text, line, column)
        if m := _DICE.match(rest):
            return _Record("play", player, line, dice=(int(m.group(1)), int(m.group(2))))
        if rest == "on roll, cube decision?":
            return _Record("double", player, line)
        if _DOUBLES_TO.match(rest):
            return _Record("answer", player, line)
        raise self.error(f"cannot read the record {text!r}", line, column)

    def action(self, rec: _Record, line: str, n: int) -> None:
        actor, rest = self.player(line[2:], n, 3)
        rec.actor, rec.action_line = actor, n
        if rest.startswith("moves "):
            rec.verb, rec.notation = "moves", rest[6:].strip()
        else:
            rec.verb = rest
        if _VERBS.get(rec.verb) != rec.kind:
            raise self.error(f"cannot read {line[2:]!r} after the record on line {rec.line}", n, 3)

    def wins(self, line: str, n: int) -> tuple[int, int, int] | None:
        names = self.record.players
        for p in sorted((0, 1), key=lambda p: -len(names[p])):
            if line.startswith(names[p] + " ") and (m := _WINS.fullmatch(line, len(names[p]) + 1)):
                return p, parse_int(m.group(1), "the points won", self.limits, line=n), n
        return None


def read_gnubg_text(
    texts: str | bytes | Sequence[str | bytes], *, strict: bool = True, limits: Limits | None = None
) -> MatchRecord:
    """Read gnubg text exports: one text, or several (consecutive games of one match).

    ``bytes``: UTF-8 (with or without BOM), else Latin-1.  Raises
    :class:`MatchFileError` on text that is not such an export (``text K:``
    names the text when there are several), and :class:`IdMismatchError` where
    the replay's Position ID or Match ID before a decision is not the file's
    (``strict=False``: that game is cut there instead).  Beyond a cap of
    ``limits`` (all texts' bytes together, lines, games, records per game,
    digits): :class:`~pulvezar.formats.limits.FileTooLargeError`.
    """
    limits = limits or DEFAULT_LIMITS
    items: Sequence[str | bytes] = [texts] if isinstance(texts, str | bytes) else texts
    check_bytes(sum(len(data) for data in items), limits)
    record = MatchRecord()
    games: list[tuple[_Game, str]] = []
    for k, data in enumerate(items, start=1):
        prefix = f"text {k}: " if len(items) > 1 else ""
        reader = _Reader(record, prefix, limits)
        reader.read(_decode(data))
        games += [(g, prefix) for g in reader.games]
    for game, prefix in games:
        _replay(record, game, prefix, strict)
        record.games.append(game.record)
    return record


def _check(game: Game, rec: _Record, prefix: str, first: bool) -> None:
    """The file's IDs before ``rec`` against the replay's (the first record's "no game" state normalised)."""
    if rec.ids is None:
        return
    pid, written, line = rec.ids
    mid = written
    ours_pid, ours_mid = game.position.position_id, match_id_of(game).encode()
    if mid != ours_mid:
        try:
            parsed: MatchId | None = MatchId.parse(mid)
        except PulvezarError:
            parsed = None
        if parsed is not None:
            if first and parsed.game_state is GameState.NONE:
                parsed = replace(parsed, game_state=GameState.PLAYING)
            d = game.dice
            if d is not None and d[0] < d[1] and parsed.dice == (d[1], d[0]):
                # a record read from a .mat keeps the rolled order ("to play 13") but gnubg's Match ID
                # in its text export holds the larger die first: accept that order, nothing else
                parsed = replace(parsed, dice=d)
            if parsed.encode() == ours_mid:
                mid = ours_mid
    if (pid, mid) != (ours_pid, ours_mid):
        what = "Position ID" if pid != ours_pid else "Match ID"
        raise IdMismatchError(
            f"{prefix}the {what} before this decision is {pid if pid != ours_pid else written}, "
            f"the replay's {ours_pid if pid != ours_pid else ours_mid}",
            line=line,
            expected=f"{pid}:{written}",
            found=f"{ours_pid}:{ours_mid}",
        )


def find_gnubg_play(plays: LegalPlays, text: str) -> Play:
    """The play gnubg writes as ``text`` among ``plays``.

    gnubg leaves out a checker's stop where nothing is hit there (``8/2`` for
    ``8/7/2`` with 51), so where the notation fits several plays the one with
    as many hits as ``text`` marks is taken.  Raises the notation errors of
    :meth:`pulvezar.rules.rules.LegalPlays.find` otherwise.
    """
    try:
        return plays.find(text)
    except AmbiguousPlayError:
        hits = text.count("*")
        fits = [p for p in plays if p.hits == hits and p.notation.replace("*", "") == text.replace("*", "")]
        if len(fits) != 1:
            fits = [p for p in plays if _collapsed(p.notation) == _collapsed(text)]
        if len(fits) != 1:
            raise
        return fits[0]


def _collapsed(notation: str) -> list[str]:
    """A play's moves with the stops where nothing is hit left out, as gnubg writes them (sorted)."""
    out = []
    for token in notation.split():
        m = re.fullmatch(r"(.*?)(\(\d\))?", token)
        assert m is not None
        points = m.group(1).split("/")
        kept = [points[0], *(x for x in points[1:-1] if x.endswith("*")), points[-1]]
        out.append("/".join(kept) + (m.group(2) or ""))
    return sorted(out)


def _find_play(plays: LegalPlays, text: str) -> Play:
    try:
        return find_gnubg_play(plays, text)
    except AmbiguousPlayError:
        raise _Cut(f"the play {text!r} is ambiguous") from None
    except PulvezarError as e:
        raise _Cut(str(e)) from None


def _replay(record: MatchRecord, g: _Game, prefix: str, strict: bool) -> None:
    """Replay one game's records into its actions; cut at the first one the rules do not allow."""
    rec = g.record
    game = record.new_game(rec)

    def act(action: Action) -> None:
        apply_action(game, action)
        rec.actions.append(action)

    for r in g.records:
        try:
            props = _props(r.analysis)
            if r.kind == "play":
                assert r.dice is not None
                if game.phase is Phase.OPENING:
                    if r.dice[0] == r.dice[1]:
                        raise _Cut("a double as the opening roll")
                elif game.phase is not Phase.ROLL or game.turn != r.player:
                    raise _Cut("a roll out of turn")
                roll = Action(r.player, "roll", dice=r.dice)
                apply_action(game, roll)
                rec.actions.append(roll)
                if game.turn != r.player:
                    raise _Cut("the opening roll's winner is not the player to play")
                _check(game, r, prefix, r is g.records[0])
                if r.actor != r.player:
                    raise _Cut(f"{record.players[r.actor]} moves for {record.players[r.player]}")
                assert game.dice is not None
                plays = game.rules.legal_plays(game.position, game.dice)
                if r.verb == "cannot move":
                    if plays[0].moves:
                        raise _Cut("cannot move, but there are legal plays")
                    play = plays[0]
                else:
                    play = _find_play(plays, r.notation)
                act(Action(r.player, "play", notation=play.notation, props=props))
            elif r.kind == "double":
                if game.phase is not Phase.ROLL or game.turn != r.player or r.actor != r.player:
                    raise _Cut("a double out of turn")
                _check(game, r, prefix, r is g.records[0])
                act(Action(r.player, "double", value=2 * game.cube_value, props=props))
            else:
                if game.phase is not Phase.DOUBLED or game.turn != r.player or r.actor == r.player:
                    raise _Cut(f"{r.verb.removesuffix('s')} without a double")
                _check(game, r, prefix, r is g.records[0])
                act(Action(r.actor, "take" if r.verb == "accepts" else "drop", props=props))
        except _Cut as e:
            rec.cut_at = f"line {r.line}: {prefix}{e}"
            break
        except IdMismatchError as e:
            if strict:
                raise
            rec.cut_at = f"line {e.line}: {str(e).split(': ', 1)[1]}"  # without "line L, column C"
            break
        except PulvezarError as e:
            rec.cut_at = f"line {r.line}: {prefix}{e}"
            break
    if g.statistics:
        rec.props["gnubg_statistics"] = [_block(g.statistics)]
    if rec.cut_at is not None:
        if g.win is not None:
            rec.winner, rec.points = g.win[0], g.win[1]
        return
    if g.win is not None and game.phase is not Phase.OVER:
        _resign(game, rec, g.win, act)
    if game.phase is Phase.OVER:
        assert game.winner is not None
        rec.winner, rec.points = game.winner, game.points
        said = g.win[1] if g.win is not None else game.points
        if g.win is not None and g.win[0] != game.winner:
            rec.notes.append(f"line {g.win[2]}: the file says {record.players[g.win[0]]} wins")
        elif said != game.points:
            rec.notes.append(f"line {g.win[2] if g.win else g.line}: the file says {said} points")
        rec.actions.append(Action(game.winner, "win", value=said))


def _resign(game: Game, rec: GameRecord, win: tuple[int, int, int], act: Callable[[Action], None]) -> None:
    """The loser resigned where the record stops, at the level of the file's points, and it was accepted."""
    winner, points, line = win
    loser = 1 - winner
    if game.phase not in (Phase.ROLL, Phase.MOVE):
        rec.cut_at = f"line {line}: the game ends at {game.phase.value}, not by a resignation"
        return
    levels = game.resignation_levels(loser)
    wanted = max(1, -(-points // game.cube_value))
    level = min(wanted, levels[-1])
    if level * game.cube_value != points:
        rec.notes.append(
            f"line {line}: {points} points on a {game.cube_value}-cube; read as a level-{level} resignation"
        )
    act(Action(loser, "resign", value=level))
    act(Action(winner, "accept"))
