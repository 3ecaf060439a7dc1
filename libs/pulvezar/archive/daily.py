"""The daily position and the daily cube decision: one per date and rule set, the same for everyone.

**Kinds.**  ``"position"`` (checker play, "Stellung des Tages"): international backgammon or
Turkish Tavla with its basic rules (``hit_and_stop`` and ``must_bear_off`` off); the dice are
given, the answer is the best play.  ``"cube"`` ("Dopplerentscheidung des Tages"): international
only, the player on roll before rolling in a 7-point match with a given score, centred cube; the
answer is the right action and the three equities ND, DT and DP.

**The candidate pool** comes from the date alone.  ``seed = SHA-256("pulvezar-daily-v1|" + date + "|"
+ rules.name + "|" + kind)``; the dice of ``games`` self-play games are :class:`~pulvezar.match.FairDice`
of that seed (a game's first roll is re-rolled while it is a double), each side plays the evaluator's
0-ply best play, and every decision of every game (position before the roll and the roll) is a
candidate, numbered by game and move.  The candidates are visited in an order shuffled by the same
seed (numpy's PCG64 seeded with the digest); the cube puzzle's score is drawn from it too (each
side 0..5 points of 7, so neither side is at Crawford or later).

**The instructiveness rule, checker play** (the first candidate, in that order, that passes all three):

1. not trivial: not the opening roll or its reply (move :attr:`~DailySettings.min_move` (3) or
   later: the opening book has those), at least :attr:`DailySettings.min_plays` (3) distinct legal
   plays, contact (no pure race or bear-off), and at 0 ply at least two plays within
   :attr:`~DailySettings.max_gap` (0.20);
2. a clear best answer that is not obvious: at :attr:`~DailySettings.screen_ply` (2) plies with the
   normal move filter, the best play beats the second by at least :attr:`~DailySettings.min_gap`
   (0.04) and at most :attr:`~DailySettings.max_gap` (0.20) cubeless equity;
3. confirmed by a rollout: the :attr:`~DailySettings.candidates` (3) best plays are rolled out with
   the same dice (:attr:`~DailySettings.trials` (324) trials, 0-ply, variance reduction, cubeless,
   truncated after :attr:`~DailySettings.truncate` (24) half-moves); the rollout's best play (the
   answer, even where the search ranked another first) must beat its second by at least
   ``max(min_rollout_gap, z * noise)`` (0.02 and two standard errors of the paired difference).
   The checker puzzle is a single game (``match_length`` 0): the answer is cubeless equity.

**The instructiveness rule, cube:** the 0-ply decision must not be trivial (a double is possible, the
player on roll wins at least :attr:`~DailySettings.min_cube_win` (55 %) of the games cubeless, the
action is not "too good", the doubler's margin ``|min(DT, DP) - ND|`` is at most
:attr:`~DailySettings.max_cube_margin` (0.25) and, when doubling is right, the taker's margin
``|DT - DP|`` at most :attr:`~DailySettings.max_take_margin` (0.5: no hopeless take or pass);
then the screen at :attr:`~DailySettings.cube_screen_ply` (1) plies must say the same; then a
cubeful cube-decision rollout (:func:`~pulvezar.rollouts.rollout_cube`: no double and double/take
with the same dice, played to the end, :attr:`~DailySettings.cube_trials` (324) trials) must be
clear: the doubler's margin at least
``max(min_cube_margin, z * noise)`` (0.03), at most 0.25, the taker's margin at most 0.5 when doubling
is right, and the action not "too good".

The pool has :attr:`~DailySettings.games` (8) games; at most :attr:`~DailySettings.max_screened` (40)
candidates are screened and :attr:`~DailySettings.max_rollouts` (5) rolled out.  When none passes,
the rolled-out candidate with the largest margin in noise units is taken and the puzzle says
``"fallback": true``; when none even reached the rollout, the first candidate of step 1 (any
decision with two plays; for the cube any decision where a double is possible) is rolled out and
taken.

The answer's reason is :func:`~pulvezar.analysis.explain` of the best play against the second
(English, German, Turkish); the cube puzzle's reason names the action and the equities.  The
puzzle records its settings and the evaluator's model digest.  The numbers are reproducible for
the same date, rules, settings and evaluator on the same machine (float rounding may differ across
machines and thread counts; the search cache is emptied first, since the net's last bits depend on
the batch a board is evaluated in), so the platform computes each puzzle once and stores it
write-once.

**The recheck.**  A served puzzle never changes; when the default net changes, :func:`recheck` judges
its answer again with the new net the way it was answered (the same rolled-out plays with the same
dice, rollout settings and seed as the puzzle's ``settings`` record; for the cube the cube decision's
rollout) and says whether the new net's answer is the puzzle's (:class:`Recheck`, stored beside it).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from pulvezar import i18n
from pulvezar.analysis.classify import classify
from pulvezar.analysis.explain import LANGUAGES, explain
from pulvezar.archive.similar import check_date
from pulvezar.cube.decision import (
    DOUBLE_PASS,
    DOUBLE_TAKE,
    NO_DOUBLE,
    CubeDecision,
    cube_decision,
)
from pulvezar.cubeful import CubeState
from pulvezar.errors import PulvezarError
from pulvezar.eval.evaluator import Evaluator, default_evaluator
from pulvezar.match.dice import FairDice
from pulvezar.rollouts.cube import CubeRollout, rollout_cube
from pulvezar.rollouts.engine import rollout_plays
from pulvezar.rollouts.stats import RolloutResult, difference_noise
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play, Rules
from pulvezar.rules.xgid import XGID
from pulvezar.search.hint import hint, searcher

Kind = Literal["position", "cube"]
KINDS: tuple[Kind, ...] = ("position", "cube")
RULE_SETS: tuple[str, ...] = ("international", "tavla")
"""The rule sets with a daily position (Tavla: basic rules); the daily cube is international."""
PUZZLE_VERSION = 1
CUBE_MATCH_LENGTH = 7
_MAX_HALF_MOVES = 400
_CLEAR_CUBE_ACTIONS = (DOUBLE_TAKE, DOUBLE_PASS, NO_DOUBLE)


@dataclass(frozen=True)
class DailySettings:
    """How much work one puzzle may take, and the thresholds of the rule (see the module)."""

    games: int = 8
    max_screened: int = 40
    max_rollouts: int = 5
    min_plays: int = 3
    screen_ply: int = 2
    min_gap: float = 0.04
    max_gap: float = 0.20
    candidates: int = 3
    trials: int = 324
    truncate: int | None = 24
    min_rollout_gap: float = 0.02
    z: float = 2.0
    cube_screen_ply: int = 1
    cube_trials: int = 324
    cube_truncate: int | None = None
    min_cube_margin: float = 0.03
    max_cube_margin: float = 0.25
    max_take_margin: float = 0.5
    min_move: int = 3
    min_cube_win: float = 0.55

    def __post_init__(self) -> None:
        for name in ("games", "max_screened", "max_rollouts", "candidates", "trials", "cube_trials"):
            if getattr(self, name) < 1:
                raise PulvezarError(f"{name} must be at least 1", field=name)
        if not 0 <= self.screen_ply <= 3 or not 0 <= self.cube_screen_ply <= 2:
            raise PulvezarError("screen plies: 0..3 (checker), 0..2 (cube)", field="screen_ply")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class DailyPuzzle:
    """One daily puzzle, JSON-serialisable with :meth:`as_dict` (see the module for the rule)."""

    date: str
    kind: Kind
    rules: str
    position_id: str
    xgid: str
    dice: tuple[int, int] | None
    match_length: int
    score: tuple[int, int]
    cube_value: int
    cube_owner: str
    game: int
    move: int
    position_type: dict[str, str | None]
    candidates: list[dict[str, Any]]
    answer: dict[str, Any]
    reason: dict[str, str]
    selection: dict[str, Any]
    settings: dict[str, Any]
    version: int = PUZZLE_VERSION
    seed: str = field(default="")

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["dice"] = None if self.dice is None else list(self.dice)
        d["score"] = list(self.score)
        return d

    def to_json(self) -> str:
        """Canonical JSON (sorted keys): equal puzzles give equal text."""
        return json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"))


# ---- the pool -----------------------------------------------------------------------------------
def daily_rules(rules: Rules | str, kind: Kind = "position") -> Rules:
    """The rule set of a daily puzzle: ``international`` or basic ``tavla`` (the cube: international)."""
    if kind not in KINDS:
        raise PulvezarError(f"kind is 'position' or 'cube', got {kind!r}", field="kind")
    name = rules.name if isinstance(rules, Rules) else rules
    if name not in RULE_SETS:
        raise PulvezarError(
            f"daily puzzles exist for {', '.join(RULE_SETS)} (Tavla with its basic rules), not {name!r}",
            field="rules",
        )
    if kind == "cube" and name != "international":
        raise PulvezarError("the daily cube decision is international (Tavla has no cube)", field="kind")
    return Rules.international() if name == "international" else Rules.tavla()


def daily_seed(date: str, rules: Rules, kind: Kind) -> bytes:
    """SHA-256 of the date, the rule set and the kind: the seed of everything about the puzzle."""
    return hashlib.sha256(f"pulvezar-daily-v{PUZZLE_VERSION}|{date}|{rules.name}|{kind}".encode()).digest()


@dataclass(frozen=True)
class Decision:
    """A candidate of the pool: the position before the roll, the roll, game and move (from 1)."""

    position: Position
    dice: tuple[int, int]
    game: int
    move: int


def self_play(seed: bytes, games: int, rules: Rules, evaluator: Evaluator) -> list[Decision]:
    """The decisions of ``games`` self-play games (0-ply best plays) with :class:`FairDice` of ``seed``."""
    dice = FairDice(seed)
    out: list[Decision] = []
    for g in range(1, games + 1):
        pos, move = Position.start(), 1
        while rules.game_result(pos) is None and move <= _MAX_HALF_MOVES:
            roll = dice.roll()
            while move == 1 and roll[0] == roll[1]:
                roll = dice.roll()
            out.append(Decision(pos, roll, g, move))
            legal = rules.legal_plays(pos, roll)
            best = legal[0] if len(legal) == 1 else _best(pos, roll, rules, evaluator)
            pos, move = best.position.swap(), move + 1
    return out


def _best(pos: Position, roll: tuple[int, int], rules: Rules, ev: Evaluator) -> Play:
    return hint(pos, roll, ply=0, rules=rules, evaluator=ev)[0].play


def _shuffled(pool: list[Decision], seed: bytes) -> Iterator[Decision]:
    rng = np.random.Generator(np.random.PCG64(int.from_bytes(seed, "big")))
    for i in rng.permutation(len(pool)):
        yield pool[int(i)]


def _rng(seed: bytes, salt: bytes) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(int.from_bytes(hashlib.sha256(seed + salt).digest(), "big")))


def _model_digest(ev: Evaluator) -> str | None:
    info = getattr(ev, "info", None)
    digest = getattr(info, "sha256", None)
    return str(digest) if digest else None


def _probs(p: Any) -> list[float]:
    return [round(float(x), 6) for x in p]


# ---- the checker puzzle -------------------------------------------------------------------------
@dataclass
class _Tried:
    decision: Decision
    ranked: list[Any]  # Candidates at the screen ply
    rolled: list[tuple[Play, RolloutResult]]
    margin: float  # rollout best - second
    noise: float


def _rollout_checker(
    d: Decision, plays: list[Play], rules: Rules, ev: Evaluator, s: DailySettings, seed: int
) -> _Tried:
    results = rollout_plays(
        d.position, d.dice, plays, trials=s.trials, seed=seed, truncate=s.truncate, evaluator=ev, rules=rules
    )
    pairs = sorted(zip(plays, results, strict=True), key=lambda t: -t[1].equity)
    margin = pairs[0][1].equity - pairs[1][1].equity
    noise = difference_noise(pairs[0][1], pairs[1][1])
    return _Tried(d, [], pairs, margin, noise)


def daily_position(
    date: str,
    rules: Rules | str = "international",
    evaluator: Evaluator | None = None,
    settings: DailySettings | None = None,
) -> DailyPuzzle:
    """The daily checker-play puzzle of ``date`` (``YYYY-MM-DD``) for ``rules`` (see the module)."""
    check_date(date)
    r = daily_rules(rules, "position")
    s = settings or DailySettings()
    ev: Evaluator = evaluator if evaluator is not None else default_evaluator()
    seed = daily_seed(date, r, "position")
    rollout_seed = int.from_bytes(seed[:4], "big")
    searcher(ev, r).cache.clear()  # values must not depend on what this process evaluated before
    pool = self_play(seed, s.games, r, ev)
    screened = rolled = 0
    tried: list[_Tried] = []
    first_ok: tuple[Decision, list[Any]] | None = None
    chosen: _Tried | None = None
    for d in _shuffled(pool, seed):
        if screened >= s.max_screened or rolled >= s.max_rollouts:
            break
        legal = r.legal_plays(d.position, d.dice)
        if d.move < s.min_move or len(legal) < s.min_plays or not d.position.is_contact():
            continue
        zero = hint(d.position, d.dice, ply=0, rules=r, evaluator=ev)
        if zero[1].loss > s.max_gap:
            continue
        if first_ok is None:
            first_ok = (d, zero)
        screened += 1
        ranked = hint(d.position, d.dice, ply=s.screen_ply, rules=r, evaluator=ev, filter="normal")
        deep = [c for c in ranked if c.ply == ranked[0].ply]
        if len(deep) < 2 or not s.min_gap <= deep[1].loss <= s.max_gap:
            continue
        rolled += 1
        t = _rollout_checker(d, [c.play for c in deep[: s.candidates]], r, ev, s, rollout_seed)
        t.ranked = ranked
        tried.append(t)
        if t.margin >= max(s.min_rollout_gap, s.z * t.noise):
            chosen = t
            break
    fallback = chosen is None
    if chosen is None:
        if tried:
            chosen = max(tried, key=lambda t: (t.margin / max(t.noise, 1e-9), -tried.index(t)))
        else:
            if first_ok is None:
                two = next((d for d in pool if len(r.legal_plays(d.position, d.dice)) >= 2), None)
                if two is None:
                    raise PulvezarError("no decision with two plays in the pool", field="date")
                first_ok = (two, hint(two.position, two.dice, ply=0, rules=r, evaluator=ev))
            d, zero = first_ok
            ranked = hint(d.position, d.dice, ply=s.screen_ply, rules=r, evaluator=ev, filter="normal")
            deep = [c for c in ranked if c.ply == ranked[0].ply]
            if len(deep) < 2:  # the filter kept one play at full depth: take the 0-ply order
                deep = zero
            chosen = _rollout_checker(
                d, [c.play for c in deep[: max(2, s.candidates)]], r, ev, s, rollout_seed
            )
            chosen.ranked = ranked
            tried.append(chosen)
    return _checker_puzzle(date, r, chosen, ev, s, seed, fallback, screened, len(tried), len(pool))


def _checker_puzzle(
    date: str,
    r: Rules,
    t: _Tried,
    ev: Evaluator,
    s: DailySettings,
    seed: bytes,
    fallback: bool,
    screened: int,
    rolled: int,
    pool: int,
) -> DailyPuzzle:
    d = t.decision
    best_eq = t.rolled[0][1].equity
    by_board = {p.position.board: res for p, res in t.rolled}
    top_ply = t.ranked[0].ply if t.ranked else 0
    deep = [c for c in t.ranked if c.ply == top_ply]
    listed = deep[: max(5, len(t.rolled))]
    for p, _ in t.rolled:  # every rolled-out play is listed (hint values every legal play)
        if all(c.play.position != p.position for c in listed):
            listed += [c for c in t.ranked if c.play.position == p.position][:1]
    cands: list[dict[str, Any]] = []
    for c in listed:
        res = by_board.get(c.play.position.board)
        cands.append(
            {
                "play": c.notation,
                "position_id": c.play.position.position_id,
                "ply": c.ply,
                "ply_equity": round(c.equity, 6),
                "ply_loss": round(c.loss, 6),
                "rollout_equity": None if res is None else round(res.equity, 6),
                "rollout_noise": None if res is None else round(res.noise, 6),
                "rollout_probs": None if res is None else _probs(res.probabilities),
                "loss": round(best_eq - res.equity, 6) if res is not None else round(c.loss, 6),
            }
        )
    # the rolled-out plays first, by rollout equity; then the others by their search value
    cands.sort(
        key=lambda c: (
            c["rollout_equity"] is None,
            -(c["ply_equity"] if c["rollout_equity"] is None else c["rollout_equity"]),
        )
    )
    best, second = t.rolled[0][0], t.rolled[1][0]
    why = explain(d.position, d.dice, best, second, r, ev)
    ptype = classify(d.position)
    xgid = XGID.from_position(d.position, dice=d.dice)
    return DailyPuzzle(
        date=date,
        kind="position",
        rules=r.name,
        position_id=d.position.position_id,
        xgid=str(xgid),
        dice=d.dice,
        match_length=0,
        score=(0, 0),
        cube_value=1,
        cube_owner="centre",
        game=d.game,
        move=d.move,
        position_type={"kind": ptype.kind, "side": ptype.side, "plan": ptype.plan},
        candidates=cands,
        answer={
            "play": best.notation,
            "position_id": best.position.position_id,
            "equity": round(best_eq, 6),
            "second": second.notation,
            "margin": round(t.margin, 6),
            "noise": round(t.noise, 6),
            "reasons": why.as_dicts(),
        },
        reason={lang: why.text(lang) for lang in LANGUAGES},
        selection={
            "fallback": fallback,
            "pool": pool,
            "screened": screened,
            "rolled_out": rolled,
            "rule": "checker-v1",
        },
        settings={
            **s.as_dict(),
            "model_sha256": _model_digest(ev),
            "rollout_seed": int.from_bytes(seed[:4], "big"),
        },
        seed=seed.hex(),
    )


# ---- the cube puzzle ----------------------------------------------------------------------------
def _doubler_margin(nd: float, dt: float, dp: float) -> float:
    return abs(min(dt, dp) - nd)


def _cube_ok_0(dec: CubeDecision, s: DailySettings) -> bool:
    if not dec.can_double or dec.dt is None or dec.dp is None:
        return False
    return (
        dec.probs[0] >= s.min_cube_win
        and dec.action in _CLEAR_CUBE_ACTIONS
        and _doubler_margin(dec.nd, dec.dt, dec.dp) <= s.max_cube_margin
        and (not dec.double or abs(dec.dt - dec.dp) <= s.max_take_margin)
    )


def _cube_margin(cr: CubeRollout) -> float:
    assert cr.dt is not None and cr.dp is not None
    return _doubler_margin(cr.nd, cr.dt, cr.dp)


def daily_cube(
    date: str, evaluator: Evaluator | None = None, settings: DailySettings | None = None
) -> DailyPuzzle:
    """The daily cube decision of ``date`` (international, 7-point match; see the module)."""
    check_date(date)
    r = daily_rules("international", "cube")
    s = settings or DailySettings()
    ev: Evaluator = evaluator if evaluator is not None else default_evaluator()
    seed = daily_seed(date, r, "cube")
    rollout_seed = int.from_bytes(seed[:4], "big")
    rng = _rng(seed, b"score")
    score = (int(rng.integers(0, CUBE_MATCH_LENGTH - 1)), int(rng.integers(0, CUBE_MATCH_LENGTH - 1)))
    searcher(ev, r).cache.clear()  # values must not depend on what this process evaluated before
    pool = self_play(seed, s.games, r, ev)
    screened = 0
    tried: list[tuple[Decision, CubeState, CubeRollout]] = []
    first_ok: tuple[Decision, CubeState] | None = None
    chosen: tuple[Decision, CubeState, CubeRollout] | None = None
    for d in _shuffled(pool, seed):
        if screened >= s.max_screened or len(tried) >= s.max_rollouts:
            break
        if d.move == 1:
            continue  # nobody doubles before the opening roll
        state = CubeState(d.position, match_length=CUBE_MATCH_LENGTH, score=score)
        if not _cube_ok_0(cube_decision(state, ev, ply=0), s):
            continue
        if first_ok is None:
            first_ok = (d, state)
        screened += 1
        if s.cube_screen_ply > 0 and not _cube_ok_0(cube_decision(state, ev, ply=s.cube_screen_ply), s):
            continue
        cr = rollout_cube(
            state, trials=s.cube_trials, seed=rollout_seed, truncate=s.cube_truncate, evaluator=ev
        )
        tried.append((d, state, cr))
        m = _cube_margin(cr)
        assert cr.dt is not None and cr.dp is not None
        if (
            cr.action in _CLEAR_CUBE_ACTIONS
            and max(s.min_cube_margin, s.z * cr.noise) <= m <= s.max_cube_margin
            and (not cr.double or abs(cr.dt - cr.dp) <= s.max_take_margin)
        ):
            chosen = (d, state, cr)
            break
    fallback = chosen is None
    if chosen is None:
        if tried:
            chosen = max(tried, key=lambda t: (_cube_margin(t[2]) / max(t[2].noise, 1e-9), -tried.index(t)))
        else:
            if first_ok is None:
                first_ok = next(
                    (
                        (d, st)
                        for d in pool
                        if d.move > 1
                        and (
                            st := CubeState(d.position, match_length=CUBE_MATCH_LENGTH, score=score)
                        ).cube.can_double
                    ),
                    None,
                )
                if first_ok is None:
                    raise PulvezarError("no cube decision in the pool", field="date")
            d, state = first_ok
            cr = rollout_cube(
                state, trials=s.cube_trials, seed=rollout_seed, truncate=s.cube_truncate, evaluator=ev
            )
            chosen = (d, state, cr)
            tried.append(chosen)
    d, state, cr = chosen
    return _cube_puzzle(date, r, d, state, cr, ev, s, seed, fallback, screened, len(tried), len(pool))


#: the cube actions' keys in the catalogs (``daily.action.<key>``)
_ACTION_KEYS = {DOUBLE_TAKE: "double_take", DOUBLE_PASS: "double_pass", NO_DOUBLE: "no_double"}


def _cube_reason(cr: CubeRollout, lang: str) -> str:
    assert cr.dt is not None and cr.dp is not None
    key = _ACTION_KEYS.get(cr.action)
    action = i18n.t(f"daily.action.{key}", lang) if key else cr.action
    nd, dt, dp = (i18n.number(x, lang, "+.3f") for x in (cr.nd, cr.dt, cr.dp))
    return i18n.t("daily.cube", lang, action=action, nd=nd, dt=dt, dp=dp, trials=cr.no_double.trials)


def _rnd(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def _cube_answer(cr: CubeRollout) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A cube rollout as a puzzle's ``answer`` and its three options (the ``candidates``)."""
    options = [
        {"action": "no double", "equity": _rnd(cr.nd), "noise": _rnd(cr.nd_se), "mwc": _rnd(cr.mwc_nd)},
        {"action": "double/take", "equity": _rnd(cr.dt), "noise": _rnd(cr.dt_se), "mwc": _rnd(cr.mwc_dt)},
        {"action": "double/pass", "equity": _rnd(cr.dp), "noise": 0.0, "mwc": _rnd(cr.mwc_dp)},
    ]
    answer = {
        "action": cr.action,
        "double": cr.double,
        "response": cr.response,
        "nd": _rnd(cr.nd),
        "dt": _rnd(cr.dt),
        "dp": _rnd(cr.dp),
        "value": _rnd(cr.value),
        "costs": {k: round(v, 6) for k, v in cr.costs.items()},
        "noise": _rnd(cr.noise),
        "cubeless_probs": _probs(cr.no_double.probabilities),
    }
    return answer, options


def _cube_puzzle(
    date: str,
    r: Rules,
    d: Decision,
    state: CubeState,
    cr: CubeRollout,
    ev: Evaluator,
    s: DailySettings,
    seed: bytes,
    fallback: bool,
    screened: int,
    rolled: int,
    pool: int,
) -> DailyPuzzle:
    ptype = classify(d.position)
    xgid = XGID.from_position(d.position, score=state.score, match_length=state.match_length)
    answer, options = _cube_answer(cr)
    return DailyPuzzle(
        date=date,
        kind="cube",
        rules=r.name,
        position_id=d.position.position_id,
        xgid=str(xgid),
        dice=None,
        match_length=state.match_length,
        score=state.score,
        cube_value=state.cube_value,
        cube_owner=state.cube_owner,
        game=d.game,
        move=d.move,
        position_type={"kind": ptype.kind, "side": ptype.side, "plan": ptype.plan},
        candidates=options,
        answer=answer,
        reason={lang: _cube_reason(cr, lang) for lang in LANGUAGES},
        selection={
            "fallback": fallback,
            "pool": pool,
            "screened": screened,
            "rolled_out": rolled,
            "rule": "cube-v1",
        },
        settings={
            **s.as_dict(),
            "model_sha256": _model_digest(ev),
            "rollout_seed": int.from_bytes(seed[:4], "big"),
        },
        seed=seed.hex(),
    )


def daily_puzzle(
    date: str,
    rules: Rules | str = "international",
    kind: Kind = "position",
    evaluator: Evaluator | None = None,
    settings: DailySettings | None = None,
) -> DailyPuzzle:
    """The daily puzzle of one kind: :func:`daily_position` or :func:`daily_cube`."""
    r = daily_rules(rules, kind)
    if kind == "cube":
        return daily_cube(date, evaluator, settings)
    return daily_position(date, r, evaluator, settings)


def daily_kinds() -> list[tuple[str, Kind]]:
    """Every (rule set, kind) that has a daily puzzle."""
    return [("international", "position"), ("tavla", "position"), ("international", "cube")]


# ---- the recheck with another net ---------------------------------------------------------------
@dataclass(frozen=True)
class Recheck:
    """A stored puzzle's answer judged again by another net (:func:`recheck`); the puzzle stays as served.

    ``answer``: the net's answer in the puzzle's shape (``play`` and ``position_id``, or ``action``,
    ``double`` and ``response``) with its equities; ``candidates``: the rolled-out plays (or the three
    cube options) with the net's equities; ``agrees``: the net's answer is the puzzle's; ``same_net``:
    the puzzle was made by this net (nothing was computed: it agrees by definition)."""

    date: str
    rules: str
    kind: Kind
    model: str | None
    model_sha256: str | None
    puzzle_model_sha256: str | None
    puzzle_answer: str
    answer: dict[str, Any]
    candidates: list[dict[str, Any]]
    agrees: bool
    engine: dict[str, Any]
    checked_at: str
    settings: dict[str, Any]
    same_net: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        """Canonical JSON (sorted keys)."""
        return json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, data: str | bytes | dict[str, Any]) -> Recheck:
        d = json.loads(data) if isinstance(data, str | bytes) else dict(data)
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})

    def summary(self) -> str:
        """The net's answer in a few words: the play, or the cube action."""
        return str(self.answer.get("play") or self.answer.get("action") or "")


def _puzzle_answer(p: dict[str, Any]) -> str:
    return str(p["answer"]["action"] if p["kind"] == "cube" else p["answer"]["play"])


def _recorded_settings(p: dict[str, Any], settings: DailySettings | None) -> DailySettings:
    if settings is not None:
        return settings
    known = DailySettings.__dataclass_fields__
    return DailySettings(**{k: v for k, v in p.get("settings", {}).items() if k in known})


def recheck(
    puzzle: DailyPuzzle | dict[str, Any],
    evaluator: Evaluator | None = None,
    settings: DailySettings | None = None,
) -> Recheck:
    """The puzzle's answer judged again with ``evaluator`` (default: the default net) the way it was
    answered: the same rolled-out candidate plays with the same dice, trials, truncation and seed as
    its settings record (``settings`` overrides them), or for the cube the cube decision's rollout.
    A puzzle made by the same net (its ``model_sha256``) is not computed again: ``same_net``, agrees."""
    from pulvezar.eval.provenance import engine_info

    p = puzzle.as_dict() if isinstance(puzzle, DailyPuzzle) else dict(puzzle)
    ev: Evaluator = evaluator if evaluator is not None else default_evaluator()
    eng = engine_info(ev)
    recorded = p.get("settings", {})
    made_by = recorded.get("model_sha256")
    r = daily_rules(p["rules"], p["kind"])
    s = _recorded_settings(p, settings)
    seed = int(recorded.get("rollout_seed", int.from_bytes(bytes.fromhex(p["seed"])[:4], "big")))
    pos = Position.from_position_id(p["position_id"])
    common = {
        "date": p["date"],
        "rules": r.name,
        "kind": p["kind"],
        "model": eng.model,
        "model_sha256": eng.model_sha256,
        "puzzle_model_sha256": made_by,
        "puzzle_answer": _puzzle_answer(p),
        "engine": eng.to_json(),
        "checked_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "settings": {**s.as_dict(), "rollout_seed": seed},
    }
    if made_by is not None and made_by == eng.model_sha256:
        return Recheck(**common, answer=dict(p["answer"]), candidates=[], agrees=True, same_net=True)
    searcher(ev, r).cache.clear()  # as when the puzzle was made
    if p["kind"] == "cube":
        state = CubeState(
            pos,
            cube_value=int(p.get("cube_value", 1)),
            cube_owner=p.get("cube_owner", "centre"),
            match_length=int(p["match_length"]),
            score=(int(p["score"][0]), int(p["score"][1])),
        )
        cr = rollout_cube(state, trials=s.cube_trials, seed=seed, truncate=s.cube_truncate, evaluator=ev)
        answer, options = _cube_answer(cr)  # the puzzle's own shape
        return Recheck(**common, answer=answer, candidates=options, agrees=cr.action == p["answer"]["action"])
    dice = (int(p["dice"][0]), int(p["dice"][1]))
    rolled = [c["position_id"] for c in p["candidates"] if c.get("rollout_equity") is not None]
    legal = {pl.position.position_id: pl for pl in r.legal_plays(pos, dice)}
    missing = [pid for pid in rolled if pid not in legal]
    if len(rolled) < 2 or missing:
        raise PulvezarError("the puzzle does not list two legal rolled-out plays", field="candidates")
    plays = [legal[pid] for pid in rolled]
    results = rollout_plays(
        pos, dice, plays, trials=s.trials, seed=seed, truncate=s.truncate, evaluator=ev, rules=r
    )
    pairs = sorted(zip(plays, results, strict=True), key=lambda t: -t[1].equity)
    best, second = pairs[0], pairs[1]
    answer = {
        "play": best[0].notation,
        "position_id": best[0].position.position_id,
        "equity": round(best[1].equity, 6),
        "second": second[0].notation,
        "margin": round(best[1].equity - second[1].equity, 6),
        "noise": round(difference_noise(best[1], second[1]), 6),
    }
    cands = [
        {
            "play": pl.notation,
            "position_id": pl.position.position_id,
            "rollout_equity": round(res.equity, 6),
            "rollout_noise": round(res.noise, 6),
            "loss": round(best[1].equity - res.equity, 6),
        }
        for pl, res in pairs
    ]
    agrees = answer["position_id"] == p["answer"]["position_id"]
    return Recheck(**common, answer=answer, candidates=cands, agrees=agrees)


__all__ = [
    "KINDS",
    "RULE_SETS",
    "DailyPuzzle",
    "DailySettings",
    "Decision",
    "Recheck",
    "daily_cube",
    "daily_kinds",
    "daily_position",
    "daily_puzzle",
    "daily_rules",
    "daily_seed",
    "recheck",
    "self_play",
]
