"""Match analysis: replaying a record and analysing each decision (see :mod:`pulvezar.analysis.match`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from pulvezar.analysis.classify import classify
from pulvezar.analysis.decisions import BLUNDER, ERROR, OPENING_ROLLS, Luck
from pulvezar.analysis.explain import explain
from pulvezar.analysis.matchanalysis.results import (
    AnalysisError,
    AnalysisSettings,
    CandidateAnalysis,
    CubeAnalysis,
    DecisionAnalysis,
    GameAnalysis,
    LuckAnalysis,
    MatchAnalysis,
    _probs5,
    engine_info,
)
from pulvezar.cube.decision import TOO_GOOD_PASS, TOO_GOOD_TAKE, CubeDecision, cube_decision
from pulvezar.cubeful import CubeState
from pulvezar.eval.evaluator import Evaluator, default_evaluator, equity, evaluate_plays, flip, swap_boards
from pulvezar.formats.record import Action, MatchRecord, apply_action, match_id_of
from pulvezar.match.game import Game, MatchContext, Phase
from pulvezar.rating import (
    cube_counts,
)
from pulvezar.rules import _kernel
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules
from pulvezar.search.hint import cubeful_value, hint, searcher
from pulvezar.search.plies import ROLL_WEIGHTS, ROLLS, Candidate, PlayValue, Search

# ---- the replay ----------------------------------------------------------------------------


def record_rules(record: MatchRecord) -> Rules:
    """The rules a record is played under: Tavla when its ``Variation`` (or ``Variant``) tag says so.

    ``HitAndStop``/``MustBearOff`` tags (``"On"``/``"true"``/``"1"``) set the Tavla options.
    """
    tags = {k.lower(): str(v) for k, v in record.tags.items()}
    variant = tags.get("variation", tags.get("variant", "")).strip().lower()
    if variant != "tavla":
        return Rules.international()

    def on(name: str) -> bool:
        return tags.get(name, "").strip().lower() in ("on", "true", "1", "yes")

    return Rules.tavla(hit_and_stop=on("hitandstop"), must_bear_off=on("mustbearoff"))


def _new_game(record: MatchRecord, index: int, rules: Rules) -> Game:
    rec = record.games[index]
    if rules.uses_cube:
        return record.new_game(rec)
    opener = None
    if index > 0 and rec.actions and rec.actions[0].kind == "roll":
        prev = record.games[index - 1].winner
        # a later Tavla game: the previous winner opens with an ordinary roll
        opener = prev if prev is not None and rec.actions[0].player == prev else None
    ctx = MatchContext(length=record.length, score=rec.score, crawford=False, rules=rules, opener=opener)
    return Game(ctx)


def _mark(loss: float) -> tuple[str, str]:
    if loss >= BLUNDER:
        return "blunder", "!!"
    if loss >= ERROR:
        return "error", "?"
    return "", ""


def _cand(c: Candidate) -> CandidateAnalysis:
    return CandidateAnalysis(c.notation, c.equity, c.cubeless_equity, c.probs, c.loss, c.ply)


class _Analyser:
    """The state shared by the decisions of one game."""

    def __init__(self, record: MatchRecord, settings: AnalysisSettings, evaluator: Evaluator | None) -> None:
        self.record = record
        self.settings = settings
        self.evaluator: Evaluator = evaluator if evaluator is not None else default_evaluator()
        self.rules = record_rules(record)
        self.search: Search = searcher(self.evaluator, self.rules, settings.prune)

    # ---- values -------------------------------------------------------------------------
    def value_fn(self, game: Game) -> PlayValue | None:
        return cubeful_value(CubeState.from_game(game)) if self.rules.uses_cube else None

    def values(self, probs: Any, boards: Any, value: PlayValue | None) -> Any:
        if value is None:
            return equity(probs, self.rules)
        return np.asarray(value(probs, boards), dtype=np.float64)

    def luck(self, game: Game, dice: tuple[int, int], opening: bool) -> LuckAnalysis:
        """The roll's value (its best play) minus the average roll's, cubeful where the game has a cube."""
        s, pos, value = self.settings, game.position, self.value_fn(game)
        if opening and self.rules.variant == "international":
            rolls, weights = OPENING_ROLLS, np.full(len(OPENING_ROLLS), 1.0 / len(OPENING_ROLLS))
        else:
            rolls, weights = ROLLS, ROLL_WEIGHTS
        if s.luck_ply == 0:
            best = self.roll_bests(pos, rolls, value)
        else:
            best = np.array([self.search.rank(pos, r, s.luck_ply, s.filter, value)[0].equity for r in rolls])
        a, b = dice
        canon = (a, b) if a >= b else (b, a)
        rolled = float(best[rolls.index(canon)])
        average = float(best @ weights)
        v = rolled - average
        mark = Luck(canon, v, rolled, average).mark
        return LuckAnalysis(v, v * game.cube_value, mark, s.luck_ply)

    def roll_bests(self, pos: Position, rolls: Sequence[tuple[int, int]], value: PlayValue | None) -> Any:
        """The 0-ply value of each roll's best play: every play of every roll generated in C and
        valued in one evaluator call, without the search cache (the 21 rolls' plays are nearly all
        new, and only one roll's are looked up again; a board's value does not depend on its batch)."""
        gen, b, flags = _kernel.generate, pos.board, self.rules.kernel_flags
        recs = [gen(b, d1, d2, flags) for d1, d2 in rolls]
        counts = np.fromiter((len(r) // _kernel.REC for r in recs), dtype=np.intp, count=len(recs))
        raw = np.frombuffer(b"".join(recs), dtype=np.uint8).reshape(-1, _kernel.REC)
        boards = np.ascontiguousarray(raw[:, :50])
        parent = np.frombuffer(b, dtype=np.uint8).reshape(1, 50)
        after = evaluate_plays(
            self.search.evaluator, parent, np.zeros(len(boards), np.intp), swap_boards(boards)
        )
        vals = self.values(flip(after), boards, value)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
        return np.maximum.reduceat(vals, starts)

    # ---- decisions ----------------------------------------------------------------------
    def checker(
        self, game: Game, gi: int, ai: int, move: int, action: Action, luck: LuckAnalysis | None
    ) -> DecisionAnalysis:
        s, pos = self.settings, game.position
        assert game.dice is not None
        dice = game.dice
        legal = self.rules.legal_plays(pos, dice)
        chosen = legal.find(action.notation or "")
        pid, mid = pos.position_id, match_id_of(game).encode()
        ptype = classify(pos)
        base = DecisionAnalysis(
            game=gi, index=ai, move=move, player=action.player, kind="checker", position_id=pid,
            match_id=mid, dice=dice, cube_value=game.cube_value, played=chosen.notation,
            best=chosen.notation, loss=0.0, counts=False, position_type=ptype.kind,
            position_side=ptype.side, plan=ptype.plan, luck=luck,
        )  # fmt: skip
        if len(legal) == 1:
            return replace(base, forced=True)
        value = self.value_fn(game)
        cands = hint(game, ply=s.ply, filter=s.filter, evaluator=self.evaluator, prune=s.prune)
        best = cands[0]
        rank = next(i for i, c in enumerate(cands) if c.play.position == chosen.position)
        played = cands[rank]
        if played.ply < best.ply:  # screened out: value it as deep as the best
            board = np.frombuffer(chosen.position.board, dtype=np.uint8).reshape(1, 50)
            probs = self.search.play_probabilities(board, best.ply)
            cubeless = float(equity(probs, self.rules)[0])
            eq = float(self.values(probs, board, value)[0])
            played = Candidate(
                played.play, _probs5(probs[0]), cubeless, best.ply, best.equity - eq, 0.0,
                eq if value is not None else None,
            )  # fmt: skip
        top = [_cand(c) for c in cands[: s.candidates]]
        if rank >= s.candidates:
            top.append(_cand(replace(played, loss=max(0.0, best.equity - played.equity))))
        played_eq = played.equity
        deep = False
        loss = max(0.0, best.equity - played_eq)
        best_notation = best.notation
        if s.deep and loss >= ERROR:
            top, loss, played_eq, best_notation = self.deep(game, cands[: s.candidates], played, value)
            deep = True
            rank = next((i for i, c in enumerate(top) if c.notation == chosen.notation), rank)
        mark, symbol = _mark(loss)
        text = ""
        reasons: tuple[dict[str, Any], ...] = ()
        if best_notation != chosen.notation:
            better = legal.find(best_notation)
            e = explain(pos, dice, better, chosen, self.rules, self.evaluator)
            text, reasons = e.text(s.lang), tuple(e.as_dicts())
        return replace(
            base, best=best_notation, loss=loss, counts=True, mark=mark, symbol=symbol,
            candidates=tuple(top), played_rank=rank, played_equity=played_eq, explanation=text,
            reasons=reasons, deep=deep,
        )  # fmt: skip

    def deep(
        self, game: Game, top: list[Candidate], played: Candidate, value: PlayValue | None
    ) -> tuple[list[CandidateAnalysis], float, float, str]:
        """Re-value the top candidates and the played play with the deep-analysis preset."""
        from pulvezar.rollouts.deep import deep_analysis

        s = self.settings
        assert game.dice is not None
        plays = [c.play for c in top]
        if all(p.position != played.play.position for p in plays):
            plays.append(played.play)
        dcs = deep_analysis(
            game.position, game.dice, plays, self.evaluator, s.seed,
            trials=s.deep_trials, ply=s.deep_ply, rules=self.rules, truncate=s.deep_truncate, prune=s.prune,
        )  # fmt: skip
        probs = np.array([0.5 * (np.asarray(d.ply_probs) + d.rollout.probabilities) for d in dcs])
        boards = np.frombuffer(b"".join(d.play.position.board for d in dcs), dtype=np.uint8).reshape(-1, 50)
        eqs = self.values(probs, boards, value)
        cubeless = equity(probs, self.rules)
        order = sorted(range(len(dcs)), key=lambda i: (-float(eqs[i]), i))
        best_eq = float(eqs[order[0]])
        out = [
            CandidateAnalysis(
                dcs[i].notation,
                float(eqs[i]),
                float(cubeless[i]),
                _probs5(probs[i]),
                best_eq - float(eqs[i]),
                "deep",
            )
            for i in order
        ]
        pi = next(i for i, d in enumerate(dcs) if d.play.position == played.play.position)
        played_eq = float(eqs[pi])
        kept = out[: s.candidates]
        if all(c.notation != played.notation for c in kept):
            kept += [c for c in out if c.notation == played.notation]
        return kept, max(0.0, best_eq - played_eq), played_eq, dcs[order[0]].notation

    def cube_state(self, game: Game) -> CubeState:
        return CubeState.from_game(game)

    def doubling(
        self, game: Game, gi: int, ai: int, move: int, doubled: bool
    ) -> tuple[DecisionAnalysis, CubeDecision] | None:
        state = self.cube_state(game)
        d = cube_decision(state, self.evaluator, ply=self.settings.cube_ply, prune=self.settings.prune)
        if d.dt is None or d.dp is None:  # the cube model sees no double here
            return None
        best_double = min(d.dt, d.dp)
        if doubled:
            loss = d.costs["double"]
            category = ""
            if loss > 0:
                category = (
                    "wrong double (too good)"
                    if d.action in (TOO_GOOD_PASS, TOO_GOOD_TAKE)
                    else "wrong double"
                )
        else:
            loss = d.costs["no double"]
            category = "missed double" if loss > 0 else ""
        mark, symbol = _mark(loss)
        counts = cube_counts(doubled, d.nd, best_double)
        ptype = classify(game.position)
        return (
            DecisionAnalysis(
                game=gi, index=ai, move=move, player=game.turn, kind="double",
                position_id=game.position.position_id, match_id=match_id_of(game).encode(), dice=None,
                cube_value=game.cube_value, played="double" if doubled else "no double",
                best="double" if d.double else "no double", loss=loss, counts=counts, mark=mark,
                symbol=symbol, category=category, position_type=ptype.kind, position_side=ptype.side,
                plan=ptype.plan, cube=_cube(d),
            ),
            d,
        )  # fmt: skip

    def answer(
        self, game: Game, gi: int, ai: int, move: int, action: Action, d: CubeDecision
    ) -> DecisionAnalysis:
        response = {"take": "take", "drop": "pass", "beaver": "beaver"}[action.kind]
        loss = d.costs.get(response, 0.0)
        best = d.response or "take"
        category = f"wrong {response}" if loss > 0 else ""
        mark, symbol = _mark(loss)
        view = game.position.swap()  # the taker's view
        ptype = classify(view)
        return DecisionAnalysis(
            game=gi, index=ai, move=move, player=action.player, kind="take",
            position_id=view.position_id, match_id=match_id_of(game).encode(), dice=None,
            cube_value=game.cube_value, played=response, best=best, loss=loss, counts=True, mark=mark,
            symbol=symbol, category=category, position_type=ptype.kind, position_side=ptype.side,
            plan=ptype.plan, cube=_cube(d),
        )  # fmt: skip


def _cube(d: CubeDecision) -> CubeAnalysis:
    return CubeAnalysis(
        d.nd, d.dt, d.dp, d.action, dict(d.costs), d.probs, d.ply, d.mwc_nd, d.mwc_dt, d.mwc_dp, d.take_point
    )


def analyse_game(
    record: MatchRecord,
    index: int,
    settings: AnalysisSettings | None = None,
    *,
    evaluator: Evaluator | None = None,
) -> GameAnalysis:
    """Analyse game ``index`` of ``record`` (see the module notes); deterministic for its inputs."""
    settings = settings or AnalysisSettings()
    if not 0 <= index < len(record.games):
        raise AnalysisError(f"game index {index} out of range 0..{len(record.games) - 1}", field="index")
    an = _Analyser(record, settings, evaluator)
    rec = record.games[index]
    game = _new_game(record, index, an.rules)
    out: list[DecisionAnalysis] = []
    move = 0
    luck: LuckAnalysis | None = None
    pending: CubeDecision | None = None
    for ai, action in enumerate(rec.actions):
        kind = action.kind
        if kind == "win":
            continue
        if game.phase is Phase.ROLL and kind in ("roll", "double") and game.can_double():
            doubled = kind == "double"
            if doubled or not an.cube_state(game).cube.dead:
                found = an.doubling(game, index, ai, move + 1, doubled)
                if found is not None:
                    out.append(found[0])
                    pending = found[1]
        if kind in ("take", "drop", "beaver") and game.phase is Phase.DOUBLED and pending is not None:
            out.append(an.answer(game, index, ai, move + 1, action, pending))
            pending = None
        if kind == "play" and game.phase is Phase.MOVE:
            out.append(an.checker(game, index, ai, move, action, luck))
            luck = None
        was_opening = game.phase is Phase.OPENING
        apply_action(game, action)
        if kind == "roll" and game.phase is Phase.MOVE:
            move += 1
            assert game.dice is not None
            luck = an.luck(game, game.dice, opening=was_opening)
    return GameAnalysis(
        index=index, number=rec.number, score=rec.score, crawford=rec.crawford, winner=rec.winner,
        points=rec.points, credited=rec.credited(record.length), variant=an.rules.variant,
        decisions=tuple(out), settings=settings, engine=engine_info(an.evaluator), cut_at=rec.cut_at,
    )  # fmt: skip


def summarise(record: MatchRecord, games: Iterable[GameAnalysis]) -> MatchAnalysis:
    """Combine per-game analyses (any order; sorted by game index) into a :class:`MatchAnalysis`."""
    gs = sorted(games, key=lambda g: g.index)
    if len({g.index for g in gs}) != len(gs):
        raise AnalysisError("a game is analysed twice", field="games")
    if any(not 0 <= g.index < len(record.games) for g in gs):
        raise AnalysisError("a game index is not in the record", field="games")
    settings = {g.settings for g in gs}
    if len(settings) > 1:
        raise AnalysisError("the games were analysed with different settings", field="settings")
    s = gs[0].settings if gs else AnalysisSettings()
    engine = gs[0].engine if gs else {}
    return MatchAnalysis(
        players=record.players, length=record.length, variant=record_rules(record).variant, games=tuple(gs),
        settings=s, engine=dict(engine), cut_games=record.cut_games,
    )  # fmt: skip


def analyse_match(
    record: MatchRecord,
    settings: AnalysisSettings | None = None,
    *,
    evaluator: Evaluator | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> MatchAnalysis:
    """Analyse every game of ``record``; ``progress(done, total)`` after each game."""
    settings = settings or AnalysisSettings()
    total = len(record.games)
    done: list[GameAnalysis] = []
    if progress is not None:
        progress(0, total)
    for i in range(total):
        done.append(analyse_game(record, i, settings, evaluator=evaluator))
        if progress is not None:
            progress(i + 1, total)
    return summarise(record, done)
