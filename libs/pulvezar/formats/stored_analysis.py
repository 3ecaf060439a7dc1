"""The analysis another program stored in a match file, read back as decisions and PR.

Two sources are read, both written by GNU Backgammon:

* its ``.sgf`` (kept verbatim in :attr:`pulvezar.formats.record.Action.props`
  by :func:`pulvezar.formats.read_sgf`): on a move node ``A[i][cand]...`` --
  ``i`` the index of the played move in the candidate list, each candidate
  ``MOVE E ver 3 p0 p1 p2 p3 p4 EQ PLIES[C] 0 DET NOISE PRUNE`` (the move as
  SGF point pairs, five probabilities, the equity, the evaluation's ply, ``C``
  when cubeful); on a move, ``double``, ``take`` or ``drop`` node
  ``DA[E ver 3 PLIES[C] DET NOISE PRUNE ND[7] DT[7]]`` -- the no-double and
  double/take evaluations, each five probabilities, the cubeless and the
  cubeful equity;
* its text export (:func:`pulvezar.formats.read_gnubg_text` keeps each
  record's analysis in ``props["gnubg_analysis"]``): ranked candidate lines
  ``N. Cubeful 4-ply  MOVE  Eq.: +0.123 (-0.045)`` (``*`` marks the played
  one) and the ``Cubeful equities:`` block of a cube decision.

Which numbers are stored (worked out from the files and checked against
gnubg's own statistics, see ``tests/formats/test_stored_analysis.py``):

* a candidate's ``EQ`` is the **normalised** equity (EMG): cubeful money
  equity per unit of the present cube, in a match the match-winning chances
  mapped to that scale -- the played move's loss is ``EQ(best) - EQ(played)``
  as gnubg's ``Error total EMG`` sums it;
* a ``DA``'s cubeful equities are **match-winning chances** in a match (the
  no-double figure of the opening position at 0-0 is about 0.5), converted
  here with :func:`pulvezar.cubeful.janowski.emg` and the Kazaross-XG2 table
  (gnubg's default) to EMG on the cube *before* the double, so that
  double/pass is exactly ``+1`` (gnubg's ``hint`` on the same positions
  prints these EMG figures to within 0.002); money equities are taken as they
  are (no money file in the corpus: unverified); a file analysed with another
  table than Kazaross-XG2 needs ``met=``;
* the text export prints EMG with three decimals (``Eq.:``; a match-winning
  chance output in ``%`` is refused), the cube block from the view of the
  player the record is about: the answer to a double is written from the
  taker's side and is turned round here.

Which decisions count is :mod:`pulvezar.rating`'s rule, and it is
gnubg's: on the eight analysed matches of the test corpus the counted
decisions per player are gnubg's "unforced moves" plus its "close or actual
cube decisions", and the error sums are its ``Error total EMG``, exactly (to
the file's rounding).

Every decision becomes a :class:`StoredDecision` and, through
:meth:`StoredDecision.to_error`, a :class:`pulvezar.rating.DecisionError`
under the shared rules of which decisions count; :func:`stored_pr` is
:func:`pulvezar.rating.performance_rating` over them.  Whether a
roll left a choice is decided by pulvezar's own
:meth:`pulvezar.rules.rules.Rules.legal_plays`, never by the file.  A checker
play without stored analysis is skipped unless it was forced (then it is a
non-counting decision with no candidates); a cube decision without it is
skipped (gnubg writes none where the cube was not available).

>>> from pulvezar.formats import read_sgf
>>> rec = read_sgf('''(;FF[4]GM[6]AP[GNU Backgammon:1.08.003]MI[length:3][game:0][ws:0][bs:0]
... PW[Ann]PB[Bob]RU[Crawford]
... ; W[31hefe]A[0][hefe E ver 3 0.55 0.17 0.009 0.12 0.005 0.21 2C 0 1 0.0 1]
...   [xwhe E ver 3 0.50 0.14 0.007 0.14 0.006 0.02 2C 0 1 0.0 1])''')
>>> d = stored_analysis(rec)[0]
>>> d.kind, d.action, d.forced, len(d.candidates), d.error, d.ply
('checker', '8/5 6/5', False, 2, 0.0, 2)
>>> stored_pr(rec)
{0: 0.0, 1: None}
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from pulvezar.cubeful.janowski import Cube, emg
from pulvezar.errors import PulvezarError
from pulvezar.formats.gnubgtext import find_gnubg_play, split_candidate
from pulvezar.formats.record import Decision, MatchRecord
from pulvezar.formats.sgf import position_after_move
from pulvezar.met.equity import MatchEquity
from pulvezar.rating import DecisionError, DecisionKind, cube_counts, performance_rating
from pulvezar.rules.rules import LegalPlays, Rules

__all__ = [
    "CubeAction",
    "StoredAnalysisError",
    "StoredCandidate",
    "StoredDecision",
    "StoredStatistics",
    "stored_analysis",
    "stored_pr",
    "stored_statistics",
]

CubeAction = Literal["no double", "double", "take", "pass"]
# a candidate line "* N. EVAL  MOVE  Eq.: +x (-y)", read in linear steps (see _text_candidate)
_TEXT_CANDIDATE_HEAD = re.compile(r"(\*)?\s+(\d+)\.\s+(?=\S)")
_TEXT_CANDIDATE_TAIL = re.compile(r"\s+(Eq\.|MWC):\s+([+-]?\d+\.\d+)(%?)(?:\s+\(([+-]?\d+\.\d+)%?\))?\s*")
_DIGITS = 9  # the most digits of a count or ply read from stored analysis
_TEXT_CUBE = re.compile(r"^\d\.\s+(No (?:re)?double|(?:Re)?[Dd]ouble, (?:take|pass))\s+([+-]?\d+\.\d+)(%?)")
_PLY = re.compile(r"(?<!\d)(\d{1,9})-ply")


def _text_candidate(line: str) -> tuple[str | None, ...] | None:
    """The groups of a candidate line (played mark, rank, evaluation, move, Eq./MWC, equity, %, loss):
    the evaluation ends at the first run of two spaces, the move at the last ``Eq.:``/``MWC:``."""
    head = _TEXT_CANDIDATE_HEAD.match(line)
    cut = split_candidate(line, head, ("Eq.:", "MWC:"), _TEXT_CANDIDATE_TAIL)
    if head is None or cut is None:
        return None
    evaluation, move, tail = cut
    return head.group(1), head.group(2), evaluation, move, *tail.groups()


class StoredAnalysisError(PulvezarError):
    """Stored analysis that cannot be read: ``game`` (0-based) and ``index`` (the action) say where."""

    def __init__(self, message: str, *, game: int, index: int, field: str = "props") -> None:
        super().__init__(f"game {game + 1}, action {index}: {message}", field=field)
        self.game = game
        self.index = index


@dataclass(frozen=True, slots=True)
class StoredCandidate:
    """One candidate play as stored: pulvezar's notation, the equity (EMG), its ply and kind."""

    notation: str
    equity: float
    ply: int | None
    cubeful: bool
    probabilities: tuple[float, ...] | None = None


@dataclass(frozen=True, slots=True)
class StoredDecision:
    """One decision with the analysis stored for it, from the deciding player's side.

    ``kind``: ``checker``, ``double`` (to double or not, by the player on roll)
    or ``take`` (the answer to a double); ``index`` the action it is about in
    ``record.games[game].actions`` (the play; for "no double" the roll it was
    made before; the double; the take or drop).  ``action``: the play's notation, or
    the :data:`CubeAction` taken.  For a checker play: ``candidates`` in the
    stored order (the program's ranking), ``played`` the index of the played
    one, ``forced`` whether pulvezar's rules leave one distinct play at most.
    For a cube decision: ``nd``, ``dt``, ``dp`` the no-double, double/take and
    double/pass equities from the doubler's side in EMG on the cube before the
    double.  ``error``: the EMG the decision lost (0 when it was right);
    ``ply``: the deepest evaluation stored for it; ``luck``: the luck of the
    roll before a checker play as stored (gnubg's SGF ``LU``, EMG, the
    mover's side).
    """

    game: int
    index: int
    player: int
    kind: DecisionKind
    action: str
    error: float
    counts: bool
    ply: int | None = None
    forced: bool = False
    candidates: tuple[StoredCandidate, ...] = ()
    played: int | None = None
    nd: float | None = None
    dt: float | None = None
    dp: float | None = None
    luck: float | None = None

    def to_error(self) -> DecisionError:
        """The shared per-decision record the PR is computed from."""
        return DecisionError(self.player, self.kind, self.error, self.counts)

    @property
    def best_cube_action(self) -> CubeAction | None:
        """The stored analysis's best action for a cube decision (``None`` for a checker play)."""
        if self.nd is None or self.dt is None or self.dp is None:
            return None
        if self.kind == "take":
            return "take" if self.dt <= self.dp else "pass"
        return "double" if min(self.dt, self.dp) > self.nd else "no double"


# ---- numbers ---------------------------------------------------------------------


def _luck(tokens: Sequence[str], where: tuple[int, int]) -> float | None:
    """A stored ``LU`` value; gnubg writes ``-inf`` where it did not judge the roll's luck: ``None``."""
    if not tokens:
        return None
    try:
        value = float(tokens[0])
    except ValueError:
        raise StoredAnalysisError(
            f"luck: expected a number, got {tokens[0]!r}", game=where[0], index=where[1]
        ) from None
    return value if math.isfinite(value) else None


def _floats(tokens: Sequence[str], where: tuple[int, int], what: str) -> list[float]:
    try:
        values = [float(t) for t in tokens]
    except ValueError:
        raise StoredAnalysisError(
            f"{what}: expected numbers, got {' '.join(tokens)!r}", game=where[0], index=where[1]
        ) from None
    if not all(math.isfinite(v) for v in values):
        raise StoredAnalysisError(f"{what}: a number that is not finite", game=where[0], index=where[1])
    return values


def _version(tokens: list[str]) -> tuple[int, list[str]]:
    """gnubg's optional ``ver N`` after the evaluation kind (absent: version 0)."""
    if len(tokens) >= 2 and tokens[0] == "ver" and tokens[1].isdecimal() and len(tokens[1]) <= _DIGITS:
        return int(tokens[1]), tokens[2:]
    return 0, tokens


def _plies(token: str, where: tuple[int, int], what: str) -> tuple[int, bool]:
    m = re.fullmatch(r"(\d{1,9})(C?)", token)
    if m is None:
        raise StoredAnalysisError(
            f"{what}: expected the ply ('2C'), got {token!r}", game=where[0], index=where[1]
        )
    return int(m.group(1)), bool(m.group(2))


# ---- SGF -------------------------------------------------------------------------


def _sgf_candidate(
    value: str, decision: Decision, plays: LegalPlays, where: tuple[int, int]
) -> tuple[StoredCandidate, int]:
    """One ``A`` candidate: (the candidate, the index of its play among ``plays``)."""
    parts = value.split()
    if len(parts) < 2:
        raise StoredAnalysisError(f"cannot read the candidate {value!r}", game=where[0], index=where[1])
    move, kind, rest = (
        (parts[0], parts[1], parts[2:]) if parts[0] not in ("E", "R", "X") else ("", parts[0], parts[1:])
    )
    if kind != "E":
        raise StoredAnalysisError(
            f"the candidate {move!r} is stored as a rollout ({kind!r}); only evaluations are read",
            game=where[0],
            index=where[1],
        )
    _, rest = _version(rest)
    if len(rest) < 7:
        raise StoredAnalysisError(f"the candidate {value!r} is too short", game=where[0], index=where[1])
    numbers = _floats(rest[:6], where, f"candidate {move!r}")
    ply, cubeful = _plies(rest[6], where, f"candidate {move!r}")
    if len(move) % 2 or len(move) > 8:
        raise StoredAnalysisError(f"cannot read the move {move!r}", game=where[0], index=where[1])
    try:
        position = position_after_move(decision.position, move, decision.action.player)
        k = plays.index_of(position)
    except (PulvezarError, ValueError):
        raise StoredAnalysisError(
            f"the stored candidate {move!r} is not a legal play here", game=where[0], index=where[1]
        ) from None
    cand = StoredCandidate(plays[k].notation, numbers[5], ply, cubeful, tuple(numbers[:5]))
    return cand, k


def _checker(
    decision: Decision, rules: Rules, candidates: list[StoredCandidate], played: int | None, plays: LegalPlays
) -> StoredDecision:
    forced = len(plays) <= 1
    error = 0.0
    if candidates and played is not None:
        error = max(0.0, candidates[0].equity - candidates[played].equity)
    plies = [c.ply for c in candidates if c.ply is not None]
    return StoredDecision(
        game=decision.game,
        index=decision.index,
        player=decision.action.player,
        kind="checker",
        action=decision.action.notation or "",
        error=error,
        counts=not forced,
        ply=max(plies) if plies else None,
        forced=forced,
        candidates=tuple(candidates),
        played=played,
    )


def _sgf_checker(decision: Decision, rules: Rules, values: list[str]) -> StoredDecision:
    where = (decision.game, decision.index)
    dice = decision.match_id.dice
    plays = rules.legal_plays(decision.position, dice)
    if not values or not values[0].strip().isdecimal() or len(values[0].strip()) > _DIGITS:
        raise StoredAnalysisError(
            "A[...] must start with the played move's index", game=where[0], index=where[1]
        )
    idx = int(values[0])
    cands: list[StoredCandidate] = []
    keys: list[int] = []
    for v in values[1:]:
        c, k = _sgf_candidate(v, decision, plays, where)
        cands.append(c)
        keys.append(k)
    if not cands:
        return _checker(decision, rules, [], None, plays)
    if idx >= len(cands):
        raise StoredAnalysisError(
            f"the played move's index {idx} is past the {len(cands)} candidates",
            game=where[0],
            index=where[1],
        )
    if plays[keys[idx]].notation != decision.action.notation:
        raise StoredAnalysisError(
            f"candidate {idx} is {cands[idx].notation!r}, the play was {decision.action.notation!r}",
            game=where[0],
            index=where[1],
        )
    return _checker(decision, rules, cands, idx, plays)


def _cube_of(decision: Decision) -> Cube:
    """The cube before the decision, seen by the player on roll (the doubler)."""
    mid = decision.match_id
    doubler = mid.dice_owner
    if not mid.match_length:
        return Cube(value=mid.cube_value)
    away = (mid.match_length - mid.score[doubler], mid.match_length - mid.score[1 - doubler])
    return Cube(value=mid.cube_value, away=away, crawford=mid.crawford)


def _sgf_cube_values(decision: Decision, value: str, met: MatchEquity) -> tuple[float, float, float, int]:
    """(ND, DT, DP, ply) of a ``DA`` value, EMG from the doubler's side."""
    where = (decision.game, decision.index)
    tokens = value.split()
    if not tokens or tokens[0] != "E":
        kind = tokens[0] if tokens else ""
        raise StoredAnalysisError(
            f"the cube analysis is stored as {kind!r}; only evaluations ('E') are read",
            game=where[0],
            index=where[1],
        )
    ver, rest = _version(tokens[1:])
    if ver < 2:
        rest = rest[4:]  # four fields left from older versions
    if not rest:
        raise StoredAnalysisError(f"the cube analysis {value!r} is too short", game=where[0], index=where[1])
    ply, _ = _plies(rest[0], where, "cube analysis")
    settings = 5 if ver == 2 else 4  # PLY[C] [reduced] DET NOISE [PRUNE]: v<2 no PRUNE, v3 no reduced
    numbers = _floats(rest[settings:], where, "cube analysis")
    if len(numbers) != 14:
        raise StoredAnalysisError(
            f"the cube analysis holds {len(numbers)} outputs, not 2 x 7", game=where[0], index=where[1]
        )
    nd_raw, dt_raw = numbers[6], numbers[13]
    cube = _cube_of(decision)
    if cube.is_money:
        return nd_raw, dt_raw, 1.0, ply
    nd, dt = float(emg(nd_raw, cube, met)), float(emg(dt_raw, cube, met))
    return nd, dt, 1.0, ply


def _cube_decision(
    decision: Decision,
    kind: DecisionKind,
    action: CubeAction,
    nd: float,
    dt: float,
    dp: float,
    ply: int | None,
    roll_index: int = -1,
) -> StoredDecision:
    best_double = min(dt, dp)
    if kind == "take":
        error = max(0.0, dt - dp) if action == "take" else max(0.0, dp - dt)
        counts = True
    elif action == "double":
        error = max(0.0, nd - best_double)
        counts = cube_counts(True, nd, best_double)
    else:
        error = max(0.0, best_double - nd)
        counts = cube_counts(False, nd, best_double)
    player = decision.action.player
    index = decision.index
    if kind == "double" and action == "no double":
        index = roll_index  # the decision was made before the roll
    return StoredDecision(
        game=decision.game,
        index=index,
        player=player,
        kind=kind,
        action=action,
        error=error,
        counts=counts,
        ply=ply,
        nd=nd,
        dt=dt,
        dp=dp,
    )


# ---- text export -----------------------------------------------------------------


def _text_checker(decision: Decision, rules: Rules, text: str) -> StoredDecision | None:
    where = (decision.game, decision.index)
    plays = rules.legal_plays(decision.position, decision.match_id.dice)
    cands: list[StoredCandidate] = []
    played: int | None = None
    for line in text.split("\n"):
        groups = _text_candidate(line)
        if groups is None:
            continue
        mark, _, evaluation, move, unit, equity, percent, _ = groups
        if unit != "Eq." or percent:
            raise StoredAnalysisError(
                "the export shows match-winning chances; export with equities (EMG)",
                game=where[0],
                index=where[1],
            )
        try:
            notation = find_gnubg_play(plays, move or "").notation
        except PulvezarError:
            raise StoredAnalysisError(
                f"the stored candidate {move!r:.80} is not a legal play here", game=where[0], index=where[1]
            ) from None
        ply = _PLY.search(evaluation or "")
        cands.append(
            StoredCandidate(
                notation,
                float(equity or 0),
                int(ply.group(1)) if ply else None,
                "Cubeful" in (evaluation or ""),
            )
        )
        if mark:
            played = len(cands) - 1
    if not cands:
        if len(plays) <= 1:
            return _checker(decision, rules, [], None, plays)
        return None
    if played is None or cands[played].notation != decision.action.notation:
        raise StoredAnalysisError(
            f"no stored candidate is the play {decision.action.notation!r}", game=where[0], index=where[1]
        )
    return _checker(decision, rules, cands, played, plays)


def _text_cube_values(decision: Decision, text: str) -> tuple[float, float, float, int | None] | None:
    where = (decision.game, decision.index)
    values: dict[str, float] = {}
    ply: int | None = None
    for line in text.split("\n"):
        if "cubeless equity" in line and (p := _PLY.search(line)):
            ply = int(p.group(1))
        m = _TEXT_CUBE.match(line)
        if m is None:
            continue
        if m.group(3):
            raise StoredAnalysisError(
                "the export shows match-winning chances; export with equities (EMG)",
                game=where[0],
                index=where[1],
            )
        label = m.group(1).lower()
        key = "nd" if label.startswith("no ") else "dp" if label.endswith("pass") else "dt"
        values[key] = float(m.group(2))
    if not values:
        return None
    if set(values) != {"nd", "dt", "dp"}:
        raise StoredAnalysisError(
            f"an incomplete cube analysis: {sorted(values)}", game=where[0], index=where[1]
        )
    sign = -1.0 if values["dp"] < 0 else 1.0  # the answer is written from the taker's side
    return sign * values["nd"], sign * values["dt"], sign * values["dp"], ply


# ---- the reader ------------------------------------------------------------------


def stored_analysis(record: MatchRecord, *, met: MatchEquity | None = None) -> list[StoredDecision]:
    """Every decision of ``record`` with the analysis a program stored for it, in match order.

    ``met``: the table gnubg's match-winning chances are converted with
    (default Kazaross-XG2, gnubg's default).  Raises :class:`StoredAnalysisError`
    on stored analysis that cannot be read or does not fit the replay.
    """
    table = met or MatchEquity.kazaross_xg2()
    out: list[StoredDecision] = []
    rules_of: dict[int, Rules] = {}
    for d in record.replay():
        a = d.action
        rules = rules_of.get(d.game)
        if rules is None:
            rules = rules_of[d.game] = record.new_game(record.games[d.game]).rules
        props = a.props
        text = "\n".join(props.get("gnubg_analysis", []))
        if a.kind == "play":
            actions = record.games[d.game].actions
            roll = d.index - 1 if d.index and actions[d.index - 1].kind == "roll" else d.index
            if "DA" in props:
                nd, dt, dp, ply = _sgf_cube_values(d, props["DA"][0], table)
                out.append(_cube_decision(d, "double", "no double", nd, dt, dp, ply, roll))
            elif text and (cube := _text_cube_values(d, text)) is not None:
                out.append(_cube_decision(d, "double", "no double", *cube, roll))
            if "A" in props:
                out.append(_sgf_checker(d, rules, props["A"]))
            elif text:
                if (c := _text_checker(d, rules, text)) is not None:
                    out.append(c)
            elif len(rules.legal_plays(d.position, d.match_id.dice)) <= 1:
                out.append(_checker(d, rules, [], None, rules.legal_plays(d.position, d.match_id.dice)))
            if "LU" in props and out and out[-1].kind == "checker" and out[-1].index == d.index:
                out[-1] = replace(out[-1], luck=_luck(props["LU"][:1], (d.game, d.index)))
        elif a.kind in ("double", "take", "drop"):
            kind: DecisionKind = "double" if a.kind == "double" else "take"
            action: CubeAction = "double" if a.kind == "double" else "take" if a.kind == "take" else "pass"
            if "DA" in props:
                # the Match ID of an answer has the doubler as dice owner: same view as the double
                nd, dt, dp, ply = _sgf_cube_values(d, props["DA"][0], table)
                out.append(_cube_decision(d, kind, action, nd, dt, dp, ply))
            elif text and (cube := _text_cube_values(d, text)) is not None:
                out.append(_cube_decision(d, kind, action, *cube))
    return out


def stored_pr(record: MatchRecord, *, met: MatchEquity | None = None) -> dict[int, float | None]:
    """Each player's PR (0 and 1) from the stored analysis (``None``: no counted decision)."""
    errors = [s.to_error() for s in stored_analysis(record, met=met)]
    return {p: performance_rating(errors, p) for p in (0, 1)}


# ---- the program's own summary ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredStatistics:
    """A player's summary as the program wrote it into the file (gnubg: ``GS`` or ``Game statistics``).

    ``close_cube``: gnubg's "close or actual cube decisions" (``None`` where the
    file does not hold it: gnubg's SGF ``GS`` leaves it out).  Errors in EMG;
    ``luck``: the sum of the luck of the player's rolls (SGF ``GS`` only).
    """

    unforced: int
    close_cube: int | None
    checker_error: float
    cube_error: float
    luck: float | None = None

    @property
    def pr(self) -> float | None:
        """500 x (checker + cube error) / (unforced moves + close cube decisions), gnubg's error rate / 2."""
        if self.close_cube is None or self.unforced + self.close_cube == 0:
            return None
        return 500.0 * (self.checker_error + self.cube_error) / (self.unforced + self.close_cube)


_STAT_PAIR = re.compile(r"^(Unforced moves|Close or actual cube decisions)\s+(\d{1,9})\s+(\d{1,9})\s*$")
_STAT_ERROR = re.compile(r"^Error total EMG \(MWC\)\s+([+-]?\d+\.\d+)\s+\([^)]*\)\s+([+-]?\d+\.\d+)")


def _text_statistics(block: str) -> list[tuple[int, int, float, float]]:
    """Per player (unforced, close, checker error, cube error) of one ``Game statistics`` block."""
    counts: dict[str, tuple[int, int]] = {}
    errors: dict[str, tuple[float, float]] = {}
    section = ""
    for line in block.split("\n"):
        if line.endswith("statistics") and not line.startswith("Game"):
            section = line.split()[0]
        elif m := _STAT_PAIR.match(line):
            counts[m.group(1)] = (int(m.group(2)), int(m.group(3)))
        elif (e := _STAT_ERROR.match(line)) and section in ("Chequerplay", "Cube"):
            errors[section] = (-float(e.group(1)), -float(e.group(2)))
    unforced = counts.get("Unforced moves", (0, 0))
    close = counts.get("Close or actual cube decisions", (0, 0))
    chk = errors.get("Chequerplay", (0.0, 0.0))
    cube = errors.get("Cube", (0.0, 0.0))
    return [(unforced[p], close[p], chk[p], cube[p]) for p in (0, 1)]


def _sgf_statistics(values: list[str]) -> list[tuple[int, float, float, float | None]] | None:
    """Per player (unforced, checker error, cube error, luck) of a ``GS`` property, or ``None``
    (also where its figures are not numbers)."""
    try:
        return _sgf_statistics_figures(values)
    except ValueError:
        return None


def _sgf_statistics_figures(values: list[str]) -> list[tuple[int, float, float, float | None]] | None:
    moves = next((v[2:].split() for v in values if v.startswith("M:")), None)
    cube = next((v[2:].split() for v in values if v.startswith("C:")), None)
    dice = next((v[2:].split() for v in values if v.startswith("D:")), None)
    if moves is None or len(moves) != 16:
        return None
    chk = [float(moves[12]), float(moves[14])]  # EMG; the MWC figure follows each
    cube_err = [0.0, 0.0]
    if cube is not None and len(cube) == 44:
        floats = [float(x) for x in cube[20:]]  # per player 6 kinds x (EMG, MWC)
        cube_err = [sum(floats[12 * p + 2 * k] for k in range(6)) for p in (0, 1)]
    luck: list[float | None] = [None, None]
    if dice is not None and len(dice) == 14:
        luck = [float(dice[10]), float(dice[12])]  # EMG; the MWC figure follows each
    if any(len(moves[p]) > _DIGITS for p in (0, 1)):
        return None
    return [(int(moves[p]), chk[p], cube_err[p], luck[p]) for p in (0, 1)]


def stored_statistics(record: MatchRecord) -> dict[int, StoredStatistics] | None:
    """The match summary the program wrote per player, summed over the games; ``None`` without one.

    Reads gnubg's text export ``Game statistics for game N`` blocks (or the
    ``Match statistics`` block the export of a match's last game ends with) and its
    SGF ``GS[M:...][C:...]`` game properties (the latter hold no count of the
    close cube decisions: :attr:`StoredStatistics.pr` is then ``None``).
    """
    totals = [[0, 0, 0.0, 0.0], [0, 0, 0.0, 0.0]]
    close_known = True
    found = False
    match_block: str | None = None
    luck: list[float | None] = [0.0, 0.0]  # from GS only; None once a game lacks it
    for g in record.games:
        if blocks := g.props.get("gnubg_statistics"):
            for block in blocks:
                game_part, _, match_part = block.partition("\nMatch statistics")
                if match_part:
                    match_block = match_part
                for p, (u, c, ce, ke) in enumerate(_text_statistics(game_part)):
                    totals[p][0] += u
                    totals[p][1] += c
                    totals[p][2] += ce
                    totals[p][3] += ke
            found = True
        elif "GS" in g.props and (gs := _sgf_statistics(g.props["GS"])) is not None:
            for p, (u, ce, ke, lu) in enumerate(gs):
                totals[p][0] += u
                totals[p][2] += ce
                totals[p][3] += ke
                if lu is not None and luck[p] is not None:
                    luck[p] = (luck[p] or 0.0) + lu
                else:
                    luck[p] = None
            close_known = False
            found = True
    if not found:
        return None
    if match_block is not None:  # the export of the last game closes with the whole match's
        return {
            p: StoredStatistics(u, c, ce, ke)
            for p, (u, c, ce, ke) in enumerate(_text_statistics(match_block))
        }
    return {
        p: StoredStatistics(
            int(t[0]),
            int(t[1]) if close_known else None,
            float(t[2]),
            float(t[3]),
            luck[p] if not close_known else None,
        )
        for p, t in enumerate(totals)
    }
