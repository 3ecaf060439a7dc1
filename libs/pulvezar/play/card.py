"""The result card of a game of a play session (the app manual's card after a game, 5.3): who won how many
points and how, the score, and each side's luck.

A roll's luck is :func:`pulvezar.analysis.decisions.luck` at 0 ply (the rolled roll's best value minus the
average over the 21 rolls, for the player who rolled); a side's luck is the sum over its rolls in the game.
:func:`card_lines` says it in each language of the catalogs (``card.*``); the gateway draws the lines as a
picture.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulvezar import i18n
from pulvezar.eval.evaluator import Evaluator
from pulvezar.play.provider import DecisionProvider

HUMAN = 0
#: how a game ended and its outcome, with their words in the catalogs (``card.<word>``, :mod:`pulvezar.i18n`)
_HOW = ("bearoff", "drop", "resignation", "timeout", "forfeit")
_OUTCOMES = ("single", "gammon", "backgammon")


def game_luck(session: Any, index: int, evaluator: Evaluator) -> tuple[float, float]:
    """Each side's luck (human, bot) over the rolls of game ``index`` (0-based) of ``session``, in
    equity per cube at 0 ply: the game's rolls as one :class:`~pulvezar.play.luck.LuckQuestion`, answered
    by a :class:`~pulvezar.play.provider.DecisionProvider` (the Evaluator service: one call, docs/adr/0019)
    or here."""
    from pulvezar.play import luck

    q = luck.question(session, index)
    return evaluator.luck()(q) if isinstance(evaluator, DecisionProvider) else luck.answer(q, evaluator)


def _num(x: float, lang: str) -> str:
    return i18n.number(x, lang, "+.2f").replace("-", "\u2212")


def card_lines(end: Mapping[str, Any], match_length: int, number: int, luck: tuple[float, float],
               lang: str = "en") -> list[str]:  # fmt: skip
    """The card's lines: the game and its result, how it ended, the score and the luck.  ``end`` is the
    game's ``game_end`` event (``player``/``details``: winner, points, how, outcome, score).

    >>> for line in card_lines({"details": {"winner": 0, "points": 2, "how": "bearoff", "outcome": "gammon",
    ...                         "score": [2, 0]}}, 5, 1, (0.31, -0.12)):
    ...     print(line)
    Game 1
    You won 2 points
    borne off: a gammon
    Score 2-0 in a 5-point match
    Luck: you +0.31, pulvezar −0.12
    """
    if lang not in i18n.LANGUAGES:
        lang = "en"

    def t(key: str, **values: Any) -> str:
        return i18n.t(f"card.{key}", lang, **values)

    d = end.get("details") or {}
    points = int(d.get("points") or 0)
    head = t("won" if d.get("winner") == HUMAN else "lost", n=points)
    how = str(d.get("how") or "bearoff")
    reason = t(how) if how in _HOW else how
    outcome = str(d.get("outcome") or "")
    if how == "bearoff" and outcome:
        reason = f"{reason}: {t(outcome) if outcome in _OUTCOMES else outcome}"
    score = d.get("score") or [0, 0]
    line = t("score", a=score[0], b=score[1]) + (t("match", n=match_length) if match_length else "")
    luck_line = t("luck", me=_num(luck[0], lang), bot=_num(luck[1], lang))
    return [t("game", n=number), head, reason, line, luck_line]
