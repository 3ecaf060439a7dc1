"""Jellyfish / eXtreme Gammon / GNU Backgammon ``.mat`` match text.

>>> rec = read_mat('''
...  3 point match
...
...  Game 1
...  Ann : 0                        Bob : 0
...   1)                             31: 8/5 6/5
...   2) 64: 24/18 13/9               Doubles => 2
...   3)  Drops
...                                   Wins 1 point
... ''')
>>> rec.length, rec.players, [(a.player, a.kind) for a in rec.games[0].actions][-3:]
(3, ('Ann', 'Bob'), [(1, 'double'), (0, 'drop'), (1, 'win')])
>>> rec.games[0].winner, rec.games[0].points, rec.cut_games
(1, 1, 0)
>>> read_mat(write_mat(rec)).games == rec.games
True

A first game that starts from a set-up position (:attr:`GameRecord.setup`) is
written with the tag ``; [Setup "PositionID:MatchID"]`` (gnubg's IDs of the
set-up, before any roll), which :func:`read_mat` reads back.  Other programs
ignore the tag and would replay the game from the opening: gnubg's own ``.mat``
export of an edited game says as much, so share such a game as SGF.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from pulvezar.errors import AmbiguousPlayError, PulvezarError
from pulvezar.formats.limits import DEFAULT_LIMITS, Limits, check_bytes, check_count, parse_int, split_lines
from pulvezar.formats.record import (
    Action,
    GameRecord,
    MatchFileError,
    MatchRecord,
    apply_action,
    setup_gnubg_id,
    setup_of_gnubg_id,
)
from pulvezar.match.game import Game, Phase, SessionOptions
from pulvezar.rules.notation import parse_segments
from pulvezar.rules.rules import LegalPlays, Play

__all__ = ["read_mat", "write_mat"]

_LENGTH = re.compile(r"\s*(\d+)\s+point\s+match\s*$", re.I)
_GAME = re.compile(r"\s*Game\s+(\d+)\s*$", re.I)
_MOVE_LINE = re.compile(r"\s*(\d+)\)")
_ITEM_START = re.compile(
    r"\b[1-6][1-6]:|\b(?:Doubles|Beavers|Raccoons|Takes|Drops|Concedes|Resigns|Losses|Wins)\b", re.I
)
_DICE_ITEM = re.compile(r"([1-6])([1-6]):(.*)")  # the play: the rest, stripped
# one whitespace-separated move of a play; possessive, so a long token costs linear time
_MOVE_TOKEN = re.compile(r"(?:bar|\d{1,2}+)(?:/(?:\d{1,2}+|off|bar)\*?+)++(?:\(\d\))?+", re.I)
_UNKNOWN = re.compile(r"\?+")
_KEYWORDS = (
    ("double", re.compile(r"Doubles\s*=>\s*(\d+)\s*$", re.I)),
    ("beaver", re.compile(r"Beavers\s*=>\s*(\d+)\s*$", re.I)),
    ("raccoon", re.compile(r"Raccoons\s*=>\s*(\d+)\s*$", re.I)),
    ("take", re.compile(r"Takes\s*$", re.I)),
    ("drop", re.compile(r"Drops\s*$", re.I)),
    ("concede", re.compile(r"(?:Concedes|Resigns)\s*$", re.I)),
    ("loss", re.compile(r"Losses\s+(\d+)\s+points?\s*$", re.I)),
    ("win", re.compile(r"Wins\s+(\d+)\s+points?(?:\s+and\s+the\s+match)?\s*$", re.I)),
)
_SETUP_TAG = "Setup"
_LEFT_MAX = 3  # an item starting at most this far after "N)" is in the left column
_WINS_LEFT_MAX = 15  # an unnumbered "Wins" line indented at most this much is the left player's


@dataclass(frozen=True, slots=True)
class _Item:
    """One cell of the two-column game text, before validation."""

    player: int
    kind: str  # move, double, beaver, raccoon, take, drop, concede, loss, win
    line: int
    column: int
    dice: tuple[int, int] | None = None
    text: str = ""
    value: int = 0


def _decode(data: str | bytes, limits: Limits) -> str:
    check_bytes(len(data), limits)
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
    else:
        text = data.removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _is_moves(text: str) -> bool:
    """Whether ``text`` is a play's moves (``8/5 6/5``, ``bar/22* 13/11(2)``): linear in its length."""
    return all(_MOVE_TOKEN.fullmatch(token) for token in text.split())


def _tag(line: str) -> tuple[str, str] | None:
    """A ``; [Name "value"]`` line's name and value (``line`` is stripped and starts with ``;``)."""
    rest = line[1:].lstrip()
    if not rest.startswith("["):
        return None
    body = rest[1:]
    quote = body.find('"')
    if quote < 0 or "]" in body[:quote]:
        return None
    tail = body[quote + 1 :].rstrip()
    if not tail.endswith("]"):
        return None
    tail = tail[:-1].rstrip()
    if not tail.endswith('"'):
        return None
    return body[:quote].strip(), tail[:-1]


def _score(line: str) -> tuple[str, str, str, str] | None:
    """The names and scores of a ``Ann : 0    Bob : 0`` line (a name may hold colons), in linear time."""
    text = line.strip()
    last = text.rfind(":")
    if last < 0 or not (right := text[last + 1 :].strip()).isdecimal():
        return None
    left = text[:last].rstrip()
    n = len(left)
    colon = left.find(":")
    while colon >= 0:  # the first colon followed by a score, spaces and the second name
        i = colon + 1
        while i < n and left[i].isspace():
            i += 1
        j = i
        while j < n and left[j].isdecimal():
            j += 1
        if colon > 0 and i < j < n and left[j].isspace():
            return left[:colon].strip(), left[i:j], left[j:].strip(), right
        colon = left.find(":", colon + 1)
    return None


def _parse_cell(text: str, player: int, line: int, column: int, limits: Limits) -> _Item:
    m = _DICE_ITEM.match(text)
    if m:
        moves = m.group(3).strip()
        if moves.lower() == "cannot move":
            moves = ""
        if not (_is_moves(moves) or _UNKNOWN.fullmatch(moves)):
            raise MatchFileError(f"cannot read the play {moves[:80]!r}", line=line, column=column)
        return _Item(player, "move", line, column, dice=(int(m.group(1)), int(m.group(2))), text=moves)
    for kind, rx in _KEYWORDS:
        m = rx.match(text)
        if m:
            value = parse_int(m.group(1), kind, limits, line=line, column=column) if m.groups() else 0
            return _Item(player, kind, line, column, value=value)
    raise MatchFileError(f"cannot read {text.strip()[:80]!r}", line=line, column=column)


def _parse_move_line(raw: str, line: int, limits: Limits) -> list[_Item]:
    m = _MOVE_LINE.match(raw)
    assert m is not None
    start = m.end()
    rest = raw[start:]
    starts = [s.start() for s in _ITEM_START.finditer(rest)]
    if rest.strip() and (not starts or rest[: starts[0]].strip()):
        col = start + len(rest) - len(rest.lstrip()) + 1
        raise MatchFileError(f"cannot read {rest.strip()!r}", line=line, column=col)
    items: list[_Item] = []
    for i, s in enumerate(starts):
        player = (0 if s <= _LEFT_MAX else 1) if i == 0 else 1
        if i > 1 or (i == 1 and items[0].player == 1):
            raise MatchFileError("more than two cells on a move line", line=line, column=start + s + 1)
        end = starts[i + 1] if i + 1 < len(starts) else len(rest)
        items.append(_parse_cell(rest[s:end].strip(), player, line, start + s + 1, limits))
    return items


def read_mat(data: str | bytes, *, limits: Limits | None = None) -> MatchRecord:
    """Read ``.mat`` text (``bytes``: UTF-8 with or without BOM, else Latin-1).

    Raises :class:`MatchFileError` on lines that are not match text, and its
    :class:`~pulvezar.formats.limits.FileTooLargeError` beyond a cap of
    ``limits`` (:data:`~pulvezar.formats.limits.DEFAULT_LIMITS`).  Games
    are replayed through the match model; a game is cut (``cut_at``) at the
    first action it does not allow, and the rest of that game is skipped.
    """
    limits = limits or DEFAULT_LIMITS
    record = MatchRecord()
    games: list[tuple[GameRecord, list[_Item]]] = []
    for n, raw in enumerate(split_lines(_decode(data, limits), limits), start=1):
        stripped = raw.strip()
        if not stripped:
            continue
        if stripped.startswith(";"):
            tag = _tag(stripped)
            if tag:
                record.tags[tag[0]] = tag[1]
            else:
                record.comments.append(stripped[1:].strip())
            continue
        if m := _LENGTH.match(raw):
            record.length = parse_int(m.group(1), "the match length", limits, line=n)
            continue
        if m := _GAME.match(raw):
            prev = games[-1][0] if games else None
            check_count("max_games", len(games) + 1, limits, "games", line=n)
            number = parse_int(m.group(1), "the game number", limits, line=n)
            score = prev.score_after(record.length) if prev else (0, 0)
            games.append((GameRecord(number=number, score=score), []))
            continue
        if not games:
            raise MatchFileError(f"unexpected text before the first game: {stripped!r}", line=n)
        rec, items = games[-1]
        check_count("max_actions", len(items) + 1, limits, "action lines in a game", line=n)
        if _MOVE_LINE.match(raw):
            items.extend(_parse_move_line(raw, n, limits))
            continue
        if not items and (cells := _score(raw)):
            rec.score = (
                parse_int(cells[1], "a score", limits, line=n),
                parse_int(cells[3], "a score", limits, line=n),
            )
            if not any(record.players):
                record.players = (cells[0], cells[2])
            continue
        indent = len(raw) - len(raw.lstrip())
        item = _parse_cell(stripped, 0 if indent <= _WINS_LEFT_MAX else 1, n, indent + 1, limits)
        if item.kind != "win":
            raise MatchFileError(f"unexpected text {stripped!r}", line=n, column=indent + 1)
        items.append(item)
    if not record.length:
        record.options = _options(record.tags, {it.kind for _, items in games for it in items})
    crawford_done = record.tags.get("Crawford", "On").lower() == "off"
    setup = record.tags.pop(_SETUP_TAG, None)
    if setup is not None and games:
        try:
            games[0][0].setup = setup_of_gnubg_id(setup)
        except PulvezarError as e:
            raise MatchFileError(f"the {_SETUP_TAG} tag: {e}", line=1) from None
    for rec, items in games:
        # no Crawford game in a 1-point match: nobody reached match point by winning a game
        if record.length > 1 and not crawford_done and record.length - 1 in rec.score:
            rec.crawford = crawford_done = True
        _validate(record, rec, items)
        record.games.append(rec)
    return record


def _on(tags: dict[str, str], name: str) -> bool | None:
    value = tags.get(name)
    return None if value is None else value.strip().lower() in ("on", "yes", "true", "1")


def _options(tags: dict[str, str], kinds: set[str]) -> SessionOptions:
    """A money session's rules: XG's ``Jacoby`` / ``Beaver`` tags; beavers also where the file has one.

    Raccoons go with beavers (gnubg counts them as further beavers).
    """
    beaver = _on(tags, "Beaver")
    if beaver is None:
        beaver = bool(kinds & {"beaver", "raccoon"})
    return SessionOptions(jacoby=bool(_on(tags, "Jacoby")), beaver=beaver, raccoon=beaver)


def _validate(record: MatchRecord, rec: GameRecord, items: list[_Item]) -> None:
    """Replay ``items`` through the model into ``rec.actions``; cut at the first bad one."""
    game = record.new_game(rec)
    acts = rec.actions

    def act(action: Action) -> None:
        apply_action(game, action)
        acts.append(action)

    clamped: list[int] = []  # lines of resignations read at a lower level than the file's figure

    def resign(player: int, points: int | None, line: int) -> None:
        # either player may resign at any time; the level is the lowest whose points reach the
        # file's figure (exact for gnubg's points, right for "credited" figures capped at the match)
        if game.phase not in (Phase.ROLL, Phase.MOVE):
            raise _Cut(f"a resignation while the game is at {game.phase.value}")
        levels = game.resignation_levels(player)
        wanted = max(1, -(-(points or game.cube_value) // game.cube_value))
        level = min(wanted, levels[-1])
        if wanted > level:
            clamped.append(line)
            what = f"a level-{wanted} resignation" if wanted <= 3 else "more than any resignation"
            rec.notes.append(
                f"line {line}: the file's {points} points on a {game.cube_value}-cube are {what}; "
                f"read at level {level}, the highest the rules allow here"
            )
        act(Action(player, "resign", value=level))
        act(Action(1 - player, "accept"))

    for i, it in enumerate(items):
        if it.kind == "win":
            if rec.winner is None:
                rec.winner, rec.points = it.player, it.value
            acts.append(Action(it.player, "win", value=it.value))
            continue
        if game.phase is Phase.OVER or rec.cut_at is not None:
            if it.kind == "move" and (not it.text or _UNKNOWN.fullmatch(it.text)):
                continue  # exporters write the loser's last roll after the game ends
            if rec.cut_at is None:
                rec.notes.append(f"line {it.line}: ignored {it.kind} after the end of the game")
            continue
        try:
            if it.kind == "move":
                assert it.dice is not None
                if game.phase is not Phase.OPENING and (
                    game.phase is not Phase.ROLL or game.turn != it.player
                ):
                    raise _Cut("a roll out of turn")
                if game.phase is Phase.OPENING and it.dice[0] == it.dice[1]:
                    raise _Cut("a double as the opening roll")
                roll = Action(it.player, "roll", dice=it.dice)
                apply_action(game, roll)
                if game.phase is Phase.ROLL and not it.text:  # Tavla's opening: its winner rolls again
                    acts.append(roll)
                    continue
                assert game.dice is not None
                plays = game.rules.legal_plays(game.position, game.dice)
                unknown = bool(_UNKNOWN.fullmatch(it.text))
                if (not it.text and plays[0].moves) or unknown:
                    nxt = items[i + 1] if i + 1 < len(items) else None
                    loses = nxt is not None and (
                        (nxt.kind == "win" and nxt.player != it.player)
                        or (nxt.kind in ("concede", "loss") and nxt.player == it.player)
                    )
                    if not loses:
                        raise _Cut(
                            "the play is not recorded" if unknown else "no play, but there are legal plays"
                        )
                    acts.append(roll)
                else:
                    play = _find_play(plays, it.text)
                    acts.append(roll)
                    act(Action(it.player, "play", notation=play.notation))
            elif it.kind == "double":
                if game.turn != it.player:
                    raise _Cut("a double out of turn")
                act(Action(it.player, "double", value=2 * game.cube_value))
                if it.value != game.cube_value * 2:
                    rec.notes.append(
                        f"line {it.line}: doubles to {it.value}, the cube is at {game.cube_value}"
                    )
            elif it.kind in ("beaver", "raccoon"):
                answerer = 1 - game.turn if it.kind == "beaver" else game.turn
                if it.player != answerer:
                    raise _Cut(f"a {it.kind} out of turn")
                cube = (4 if it.kind == "beaver" else 8) * game.cube_value
                act(Action(it.player, "beaver" if it.kind == "beaver" else "raccoon", value=cube))
                if it.value != cube:
                    rec.notes.append(f"line {it.line}: {it.kind} to {it.value}, the cube goes to {cube}")
            elif it.kind in ("take", "drop"):
                if game.phase not in _ANSWERED or it.player != _answerer(game):
                    raise _Cut(f"a {it.kind} without a double")
                act(Action(it.player, "take" if it.kind == "take" else "drop"))
            elif it.kind == "loss":
                resign(it.player, it.value, it.line)
            elif it.kind == "concede":
                later = next((x.value for x in items[i + 1 :] if x.kind == "win"), None)
                resign(it.player, later, it.line)
            nxt = items[i + 1] if i + 1 < len(items) else None
            if nxt is not None and nxt.kind == "win" and not _over(game):
                resign(1 - nxt.player, nxt.value, nxt.line)
        except _Cut as e:
            rec.cut_at = f"line {it.line}: {e}"
        except PulvezarError as e:
            rec.cut_at = f"line {it.line}: {e}"
    if game.phase is Phase.OVER:
        said = (rec.winner, rec.points)
        rec.winner, rec.points = game.winner, game.points
        if said[0] is None:
            acts.append(Action(game.winner or 0, "win", value=game.points))
        elif said[0] != game.winner:
            rec.notes.append(f"the file says player {said[0]} wins, the replay player {game.winner}")
        elif said[1] not in (game.points, rec.credited(record.length)) and not clamped:
            rec.notes.append(f"the file says {said[1]} points, the replay {game.points}")


def _ends(segments: list[list[int]]) -> Counter[tuple[int, int]]:
    """The (start, end) of each checker's path, joining moves that continue each other."""
    paths = [[s[0], s[-1]] for s in segments]
    joined = True
    while joined:
        joined = False
        for a in paths:
            b = next((b for b in paths if b is not a and b[0] == a[1] and a[1] != 0), None)
            if b is not None:
                a[1] = b[1]
                paths.remove(b)
                joined = True
                break
    return Counter((a, b) for a, b in paths)


def _find_play(plays: LegalPlays, text: str) -> Play:
    """The play ``text`` names; when only hits tell plays apart, the one with the written hits."""
    try:
        return plays.find(text)
    except AmbiguousPlayError:
        ends = _ends(parse_segments(text))
        hits = text.count("*")
        fits = [p for p in plays if _ends([[m.src, m.dst] for m in p.moves]) == ends]
        best = [p for p in fits if p.hits == hits] or sorted(fits, key=lambda p: p.hits)[:1]
        if len(best) != 1:
            raise
        return best[0]
    except PulvezarError as e:
        raise _Cut(str(e)) from None


_ANSWERED = (Phase.DOUBLED, Phase.BEAVERED, Phase.RACCOONED)


def _answerer(game: Game) -> int:
    """Who takes or drops now: the doubled player, or after a beaver the doubler."""
    return game.turn if game.phase is Phase.BEAVERED else 1 - game.turn


def _over(game: Game) -> bool:
    return game.phase is Phase.OVER


class _Cut(Exception):
    """Internal: stop replaying this game."""


def _plural(points: int) -> str:
    return f"{points} point" + ("s" if points != 1 else "")


def write_mat(record: MatchRecord) -> str:
    """Canonical ``.mat`` text: tags, length, games in two columns, ``Wins`` lines."""
    tags = dict(record.tags)
    if not record.length:  # a money session's rules, where no tag of the file says them
        for name, on in (("Jacoby", record.options.jacoby), ("Beaver", record.options.beaver)):
            if on and name not in tags:
                tags[name] = "On"
    if any(rec.setup is not None for rec in record.games[1:]):
        raise PulvezarError("a .mat file holds a set-up position for its first game only", field="format")
    if record.games and record.games[0].setup is not None:
        tags[_SETUP_TAG] = setup_gnubg_id(record, record.games[0])
    out = [f'; [{k} "{v}"]' for k, v in tags.items()]
    out += [f"; {c}" for c in record.comments]
    if out:
        out.append("")
    if record.length:
        out += [f" {record.length} point match", ""]
    for rec in record.games:
        out += _game_text(record, rec)
    return "\n".join(out) + "\n"


def _game_text(record: MatchRecord, rec: GameRecord) -> list[str]:
    left = f" {record.players[0]} : {rec.score[0]}"
    out = [f" Game {rec.number}", f"{left:<33}{record.players[1]} : {rec.score[1]}"]
    rows: list[list[str]] = []  # [left cell, right cell]; "" is empty
    wins: list[str] = []
    for a in rec.actions:
        if a.kind == "play":
            rows[-1][a.player] += f" {a.notation}" if a.notation else " Cannot Move"
            continue
        if a.kind == "win":
            score = rec.score[a.player] + a.value
            match = " and the match" if record.length and score >= record.length else ""
            text = f"Wins {_plural(a.value)}{match}"
            if a.player == 1 and rows and not rows[-1][1] and not wins:
                rows[-1][1] = f" {text}"  # gnubg's layout: it skips the next game otherwise
            else:
                wins.append(" " * (6 if a.player == 0 else 34) + text)
            continue
        if a.kind == "roll":
            assert a.dice is not None
            cell = f"{a.dice[0]}{a.dice[1]}:"
        elif a.kind == "double":
            cell = f" Doubles => {a.value}"
        elif a.kind in ("beaver", "raccoon"):
            cell = f" {'Beavers' if a.kind == 'beaver' else 'Raccoons'} => {a.value}"
        elif a.kind in ("take", "drop"):
            cell = " Takes" if a.kind == "take" else " Drops"
        else:
            continue  # resignations show as the "Wins" line; a rejected one is not shown
        if not rows or rows[-1][1] or (a.player == 0 and rows[-1][0]):
            rows.append(["", ""])
        rows[-1][a.player] = cell
    for n, (c0, c1) in enumerate(rows, start=1):
        left = f"{c0:<28}" if len(c0) < 28 else f"{c0} "  # a long play keeps a space before the next cell
        out.append(f"{n:3d}) {left}{c1}".rstrip())
    return [*out, *wins, ""]
