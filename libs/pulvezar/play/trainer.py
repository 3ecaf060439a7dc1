"""Trainer verdicts: what the player's last decision lost, its mark, the better choice and why.

A checker play is valued with :func:`pulvezar.analysis.decisions.play_error`
(cubeless equity at the trainer's ply) and explained with
:func:`pulvezar.analysis.explain.explain` in English, German and Turkish.  A
cube decision (rolling when a double was possible, doubling, and the answer
to the bot's double) is valued with :func:`pulvezar.cube.cube_decision`; its
loss is the decision's cost in normalised equity (per cube; EMG in a match).

Marks as the app sets them: a loss of at least 0.02 is ``"doubtful"`` (the
analysis calls it an error, ``?``), of at least 0.08 a ``"blunder"`` (``!!``);
less is ``"ok"``.

Each trainer's search (an in-game hint or a verdict) is a :class:`TrainerQuestion`, the whole input of
it, answered by :func:`answer` as a JSON-able value; a session's evaluator that is a
:class:`~pulvezar.play.provider.DecisionProvider` answers them elsewhere (``trainer()``: the services send
each one to the Evaluator service in one call, docs/adr/0019).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pulvezar import i18n
from pulvezar.analysis.decisions import BLUNDER, ERROR, play_error
from pulvezar.analysis.explain import LANGUAGES, explain
from pulvezar.cube import CubeDecision, cube_decision
from pulvezar.cubeful import CubeState
from pulvezar.eval.evaluator import Evaluator
from pulvezar.match.game import Game
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play, Rules

Mark = Literal["ok", "doubtful", "blunder"]
TrainerAsk = Literal["hint", "play", "double", "answer"]
TRAINER_ASKS: tuple[TrainerAsk, ...] = ("hint", "play", "double", "answer")


@dataclass(frozen=True)
class TrainerQuestion:
    """One search of the trainer, on turn's view: ``hint`` (the best ``limit`` plays of ``dice``),
    ``play`` (the verdict on ``play`` of ``dice``), ``double`` (on rolling or doubling: ``doubled``) or
    ``answer`` (on ``reply`` to a double, the doubler on turn). ``cube``: the cube questions' cube."""

    ask: TrainerAsk
    position: Position
    rules: Rules
    ply: int
    prune: bool = True
    dice: tuple[int, int] | None = None
    play: Play | None = None
    cube: CubeState | None = None
    doubled: bool = False
    reply: str = ""
    limit: int = 5


def answer(q: TrainerQuestion, evaluator: Evaluator) -> Any:
    """The answer to ``q`` on ``evaluator``: the hint's candidates (a list) or the verdict (a dict)."""
    if q.ask == "hint":
        assert q.dice is not None
        return hint_candidates(q.position, q.dice, q.rules, evaluator, q.ply, q.prune, q.limit)
    if q.ask == "play":
        assert q.dice is not None and q.play is not None
        return _play_verdict(q.position, q.dice, q.rules, q.play, evaluator, q.ply, q.prune)
    assert q.cube is not None, f"{q.ask}: a question of the cube needs the cube"
    d = cube_decision(q.cube, evaluator, ply=min(q.ply, 2), prune=q.prune)
    if q.ask == "double":
        return _double_verdict(d, q.doubled)
    return _answer_verdict(d, q.reply)


def hint_candidates(
    position: Position, dice: tuple[int, int], rules: Rules, evaluator: Evaluator, ply: int,
    prune: bool = True, limit: int = 5,
) -> list[dict[str, Any]]:  # fmt: skip
    """The best ``limit`` plays of ``dice`` at ``ply``, best first (``notation``, ``position_id`` after
    the play in the mover's view, ``equity``, ``loss``, ``probabilities``, ``ply``)."""
    from pulvezar.search.hint import searcher

    ranked = searcher(evaluator, rules, prune).rank(position, dice, ply)
    top = [c for c in ranked if c.ply == ranked[0].ply][:limit]
    return [
        {"notation": c.play.notation, "position_id": c.play.position.position_id,
         "equity": round(c.cubeless_equity, 4), "loss": round(c.loss, 4),
         "probabilities": [round(x, 4) for x in c.probs], "ply": c.ply}
        for c in top
    ]  # fmt: skip


def mark_of(loss: float) -> Mark:
    """``"blunder"`` from 0.08, ``"doubtful"`` from 0.02, else ``"ok"``."""
    if loss >= BLUNDER:
        return "blunder"
    if loss >= ERROR:
        return "doubtful"
    return "ok"


def _verdict(
    decision: str, played: str, best: str, loss: float, explanation: dict[Any, str] | None, **details: Any
) -> dict[str, Any]:
    loss = max(0.0, float(loss))
    return {
        "decision": decision,
        "played": played,
        "best": best,
        "loss": round(loss, 4),
        "mark": mark_of(loss),
        "explanation": explanation,
        "details": details,
    }


def play_verdict(
    game: Game, play: Play, evaluator: Evaluator, ply: int, prune: bool = True
) -> dict[str, Any]:
    """The verdict on ``play`` in ``game`` (at MOVE, before the play is made)."""
    assert game.dice is not None
    return _play_verdict(game.position, game.dice, game.rules, play, evaluator, ply, prune)


def _play_verdict(
    position: Position, dice: tuple[int, int], rules: Rules, play: Play, evaluator: Evaluator, ply: int,
    prune: bool,
) -> dict[str, Any]:  # fmt: skip
    plays = rules.legal_plays(position, dice)
    if len(plays) == 1:
        return _verdict("play", play.notation, play.notation, 0.0, None, ply=ply, candidates=1)
    err = play_error(position, dice, play, ply=ply, rules=rules, evaluator=evaluator, prune=prune)
    best = err.best.play
    text = None
    if best.position != play.position:
        e = explain(position, dice, best, play, rules, evaluator)
        text = {lang: e.text(lang) for lang in LANGUAGES}
        reasons = e.as_dicts()
    else:
        reasons = []
    return _verdict(
        "play", play.notation, best.notation, err.loss, text, ply=ply, candidates=len(plays), reasons=reasons
    )


# ---- cube ---------------------------------------------------------------------------------------
def _num(x: float, lang: str) -> str:
    return i18n.number(x, lang, "+.3f")


def _decision(game: Game, evaluator: Evaluator, ply: int, prune: bool = True) -> CubeDecision:
    return cube_decision(CubeState.from_game(game), evaluator, ply=min(ply, 2), prune=prune)


def double_verdict(
    game: Game, doubled: bool, evaluator: Evaluator, ply: int, prune: bool = True
) -> dict[str, Any]:
    """The verdict on rolling (``doubled=False``) or doubling, with the player on roll at ROLL."""
    return _double_verdict(_decision(game, evaluator, ply, prune), doubled)


def _double_verdict(d: CubeDecision, doubled: bool) -> dict[str, Any]:
    played = "double" if doubled else "no double"
    right = "double" if d.double else "no double"
    loss = d.costs.get(played, 0.0)
    assert d.dt is not None and d.dp is not None
    text = {
        lang: i18n.t(
            "trainer.double",
            lang,
            right=i18n.t(f"trainer.double_name.{right.replace(' ', '_')}", lang),
            nd=_num(d.nd, lang),
            dt=_num(d.dt, lang),
            dp=_num(d.dp, lang),
        )
        for lang in LANGUAGES
    }
    return _verdict(
        "cube", played, right, loss, text if played != right else None,
        action=d.action, nd=round(d.nd, 4), dt=round(d.dt, 4), dp=round(d.dp, 4), ply=d.ply,
    )  # fmt: skip


def answer_verdict(
    game: Game, answer: str, evaluator: Evaluator, ply: int, prune: bool = True
) -> dict[str, Any]:
    """The verdict on the answer (``take``, ``pass``, ``beaver``) to a double; the doubler is on turn."""
    return _answer_verdict(_decision(game, evaluator, ply, prune), answer)


def _answer_verdict(d: CubeDecision, answer: str) -> dict[str, Any]:
    assert d.dt is not None and d.dp is not None
    key = "pass" if answer == "drop" else answer
    taker = {k: v for k, v in d.costs.items() if k in ("take", "pass", "beaver")}
    right = min(taker, key=lambda k: (taker[k], k != "take"))
    loss = taker.get(key, 0.0)
    text: dict[str, str] = {}
    for lang in LANGUAGES:
        beaver = i18n.t("trainer.beaver_part", lang, v=_num(-2 * d.dt, lang)) if "beaver" in taker else ""
        text[lang] = i18n.t(
            "trainer.answer", lang, right=i18n.t(f"trainer.answer_name.{right}", lang),
            take=_num(-d.dt, lang), drop=_num(-d.dp, lang), beaver=beaver,
        )  # fmt: skip
    return _verdict(
        "answer", key, right, loss, text if key != right else None,
        action=d.action, dt=round(d.dt, 4), dp=round(d.dp, 4), ply=d.ply,
    )  # fmt: skip
