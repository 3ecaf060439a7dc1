"""The result card of a game of a play session (the app manual's card after a game, 5.3): who won how many
points and how, the score, and each side's luck.

A roll's luck is :func:`pulvezar.analysis.decisions.luck` at 0 ply (the rolled roll's best value minus the
average over the 21 rolls, for the player who rolled); a side's luck is the sum over its rolls in the game.
:func:`card_lines` says it in English, German or Turkish; the gateway draws the lines as a picture.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulvezar.eval.evaluator import Evaluator
from pulvezar.play.provider import DecisionProvider

HUMAN = 0

_TEXT: dict[str, dict[str, str]] = {
    "en": {
        "won": "You won {points} point{s}", "lost": "pulvezar won {points} point{s}",
        "bearoff": "borne off", "single": "a single game", "gammon": "a gammon", "backgammon": "a backgammon",
        "drop": "double passed", "resignation": "resignation accepted", "timeout": "time ran out",
        "score": "Score {a}-{b}", "match": " in a {n}-point match", "luck": "Luck: you {me}, pulvezar {bot}",
        "game": "Game {n}",
    },
    "de": {
        "won": "Du hast {points} Punkt{s_de} gewonnen", "lost": "pulvezar hat {points} Punkt{s_de} gewonnen",
        "bearoff": "ausgewürfelt", "single": "ein einfaches Spiel", "gammon": "ein Gammon",
        "backgammon": "ein Backgammon", "drop": "Doppler abgelehnt", "resignation": "Aufgabe angenommen",
        "timeout": "Zeit abgelaufen", "score": "Stand {a}-{b}", "match": " in einem Match auf {n} Punkte",
        "luck": "Glück: du {me}, pulvezar {bot}", "game": "Spiel {n}",
    },
    "tr": {
        "won": "{points} sayı kazandın", "lost": "pulvezar {points} sayı kazandı",
        "bearoff": "taşlar toplandı", "single": "tek oyun", "gammon": "mars", "backgammon": "backgammon",
        "drop": "katlama reddedildi",
        "resignation": "pes kabul edildi", "timeout": "süre doldu", "score": "Skor {a}-{b}",
        "match": ", {n} sayılık maç", "luck": "Şans: sen {me}, pulvezar {bot}", "game": "Oyun {n}",
    },
}  # fmt: skip


def game_luck(session: Any, index: int, evaluator: Evaluator) -> tuple[float, float]:
    """Each side's luck (human, bot) over the rolls of game ``index`` (0-based) of ``session``, in
    equity per cube at 0 ply: the game's rolls as one :class:`~pulvezar.play.luck.LuckQuestion`, answered
    by a :class:`~pulvezar.play.provider.DecisionProvider` (the Evaluator service: one call, docs/adr/0019)
    or here."""
    from pulvezar.play import luck

    q = luck.question(session, index)
    return evaluator.luck()(q) if isinstance(evaluator, DecisionProvider) else luck.answer(q, evaluator)


def _num(x: float, lang: str) -> str:
    s = f"{x:+.2f}".replace("-", "\u2212")
    return s.replace(".", ",") if lang in ("de", "tr") else s


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
    t = _TEXT.get(lang, _TEXT["en"])
    d = end.get("details") or {}
    points = int(d.get("points") or 0)
    plural = {"s": "" if points == 1 else "s", "s_de": "" if points == 1 else "e"}
    head = t["won" if d.get("winner") == HUMAN else "lost"].format(points=points, **plural)
    how = str(d.get("how") or "bearoff")
    reason = t.get(how, how)
    if how == "bearoff" and d.get("outcome"):
        reason = f"{reason}: {t.get(str(d['outcome']), str(d['outcome']))}"
    score = d.get("score") or [0, 0]
    line = t["score"].format(a=score[0], b=score[1]) + (
        t["match"].format(n=match_length) if match_length else ""
    )
    return [t["game"].format(n=number), head, reason, line,
            t["luck"].format(me=_num(luck[0], lang), bot=_num(luck[1], lang))]  # fmt: skip
