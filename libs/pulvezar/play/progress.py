"""What the analyses of a player's matches add to the learner's record (the app manual, 5.7 and 5.12).

:func:`match_part` reads one analysed match from the player's side: its PR, the decisions and the points
lost per position type in each game, and the blunders.  :func:`fold_match` adds it to the counters of
:mod:`pulvezar.play.statistics` (the PR trend, the mistakes by position type, four achievements), so a read
never goes over the analyses again; :func:`pr_trend`, :func:`frequent_mistakes` and :func:`weekly_plan` read
the counters; :func:`blunder_cards` turns the player's blunders into flash cards (a daily puzzle's shape,
judged as one: :func:`pulvezar.archive.attempts.judge`).

Every loss here is in normalised equity (EMG) and PR is 500 x the mean loss of the counted decisions
(:func:`pulvezar.analysis.rating.performance_rating`).

>>> s = fold_match(None, {"pr": 4.0, "decisions": 30, "games": [{"types": {"race": [30, 0.24, 1]},
...     "flawless": False}], "won": True, "source": "import", "ref": "job:a:0"}, when=1.0)
>>> pr_trend(s)["last"], sorted(s["achievements"])
(4.0, ['imported_match', 'low_pr'])
>>> frequent_mistakes(s)[0]["position_type"], frequent_mistakes(s)[0]["pr"]
('race', 4.0)
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from pulvezar import i18n
from pulvezar.analysis.decisions import BLUNDER, ERROR
from pulvezar.analysis.matchanalysis.results import GameAnalysis
from pulvezar.errors import PulvezarError
from pulvezar.rules.notation import parse_play
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules

#: the PR trend keeps the last this many analysed matches
TREND_KEEP = 200
#: per position type, the games kept for the trend ("your last ten games against the earlier ones")
RECENT_GAMES = 10
#: a position type is one of "your most frequent mistakes" with at least this many decisions
MIN_MISTAKE_DECISIONS = 20
#: an area of the weekly plan needs at least this many analysed decisions
MIN_PLAN_DECISIONS = 40
#: a trend is "better" or "worse" when the recent PR differs from the earlier one by more than this
TREND_MARGIN = 0.5
#: the position types (:func:`pulvezar.analysis.classify`) in each language of the catalogs
#: (``progress.type.<type>``, :mod:`pulvezar.i18n`)
TYPE_NAMES: dict[str, dict[str, str]] = {
    k: {lang: i18n.t(f"progress.type.{k}", lang) for lang in i18n.LANGUAGES}
    for k in ("opening", "race", "bear-off", "blitz", "backgame", "prime", "holding", "contact")
}
#: the exercise and the lesson that train each position type (issue 30 builds them)
PRACTICE: dict[str, tuple[str, str]] = {
    "opening": ("take-point", "openings"),
    "race": ("pip-count", "pip-counting"),
    "bear-off": ("bear-off", "bearing-off"),
    "blitz": ("take-point", "blot-risk"),
    "backgame": ("take-point", "game-plans"),
    "prime": ("take-point", "game-plans"),
    "holding": ("take-point", "game-plans"),
    "contact": ("pip-count", "blot-risk"),
}


def _pr(loss: float, decisions: int) -> float | None:
    return 500.0 * loss / decisions if decisions else None


def match_part(games: Sequence[GameAnalysis], side: int, stats: Mapping[str, Any]) -> dict[str, Any]:
    """The player's (``side``'s) part of an analysed match, as JSON: ``pr``, ``decisions``, ``errors``,
    ``blunders`` (from ``stats``, the match summary's statistics of that side), ``won`` (more points than
    the opponent; None when no game ended) and per game ``types`` (``{type: [decisions, loss, errors]}``
    of the counted decisions) and ``flawless`` (counted decisions, none of them an error)."""
    parts = []
    for g in games:
        types: dict[str, list[Any]] = {}
        mine = [d for d in g.decisions if d.player == side and d.counts]
        for d in mine:
            t = types.setdefault(d.position_type or "contact", [0, 0.0, 0])
            t[0] += 1
            t[1] += d.loss
            t[2] += int(d.loss >= ERROR)
        parts.append({"types": types, "flawless": bool(mine) and all(d.loss < ERROR for d in mine)})
    ended = [g for g in games if g.winner is not None]
    mine_pts = sum(g.result_points(side) for g in ended)
    return {
        "pr": stats.get("pr"),
        "decisions": int(stats.get("decisions") or 0),
        "errors": int(stats.get("errors") or 0),
        "blunders": int(stats.get("blunders") or 0),
        "won": (mine_pts > 0) if ended else None,
        "games": parts,
    }


def fold_match(stats: Mapping[str, Any] | None, part: Mapping[str, Any], when: float) -> dict[str, Any]:
    """The counters ``stats`` with one analysed match added (``part`` from :func:`match_part`, with its
    ``source``: ``game`` for a game played here, ``import`` for an uploaded file, and ``ref``)."""
    from pulvezar.play.statistics import fold

    out = fold(stats, [], {})
    analysed = out.setdefault("analysed", {"matches": 0, "trend": []})
    analysed["matches"] += 1
    if part.get("pr") is not None:
        analysed["trend"] = [*analysed["trend"], [when, float(part["pr"]), part.get("ref")]][-TREND_KEEP:]
    types = out.setdefault("types", {})
    for game in part.get("games", ()):
        for kind, (n, loss, errors) in game["types"].items():
            t = types.setdefault(kind, {"decisions": 0, "loss": 0.0, "errors": 0, "recent": []})
            t["decisions"] += int(n)
            t["loss"] += float(loss)
            t["errors"] += int(errors)
            t["recent"] = [*t["recent"], [int(n), float(loss)]][-RECENT_GAMES:]
        if game.get("flawless"):
            out["achievements"].setdefault("flawless_game", when)
    reached = out["achievements"]
    reached.setdefault("imported_match" if part.get("source") == "import" else "analysed_game", when)
    if part.get("pr") is not None and float(part["pr"]) < 5.0:
        reached.setdefault("low_pr", when)
    return out


def pr_trend(stats: Mapping[str, Any] | None) -> dict[str, Any]:
    """The PR of the analysed matches, oldest first (``points``: ``{"time", "pr", "ref"}``), with the
    ``last``, the ``best`` (lowest) and the ``mean_last5`` (None before the first)."""
    trend = ((stats or {}).get("analysed") or {}).get("trend") or []
    prs = [p[1] for p in trend]
    return {
        "points": [{"time": t, "pr": round(pr, 2), "ref": ref} for t, pr, ref in trend],
        "last": round(prs[-1], 2) if prs else None,
        "best": round(min(prs), 2) if prs else None,
        "mean_last5": round(sum(prs[-5:]) / len(prs[-5:]), 2) if prs else None,
        "matches": int(((stats or {}).get("analysed") or {}).get("matches") or 0),
    }


def _trend(t: Mapping[str, Any]) -> str | None:
    """``better`` when the last games' PR is lower than the earlier games' by more than
    :data:`TREND_MARGIN`, ``worse`` when higher, ``steady`` otherwise; None without earlier games."""
    n_recent = sum(n for n, _ in t["recent"])
    loss_recent = sum(x for _, x in t["recent"])
    recent = _pr(loss_recent, n_recent)
    earlier = _pr(t["loss"] - loss_recent, t["decisions"] - n_recent)
    if recent is None or earlier is None:
        return None
    if recent < earlier - TREND_MARGIN:
        return "better"
    return "worse" if recent > earlier + TREND_MARGIN else "steady"


def _areas(stats: Mapping[str, Any] | None, minimum: int, n: int, language: str) -> list[dict[str, Any]]:
    types = (stats or {}).get("types") or {}
    big = [(k, t) for k, t in types.items() if t["decisions"] >= minimum]
    big.sort(key=lambda kt: (-kt[1]["loss"], kt[0]))
    return [
        {
            "position_type": k,
            "name": TYPE_NAMES.get(k, {}).get(language) or TYPE_NAMES.get(k, {}).get("en") or k,
            "decisions": t["decisions"],
            "errors": t["errors"],
            "points_lost": round(t["loss"], 4),
            "pr": round(_pr(t["loss"], t["decisions"]) or 0.0, 2),
            "trend": _trend(t),
        }
        for k, t in big[:n]
    ]


def frequent_mistakes(stats: Mapping[str, Any] | None, language: str = "en") -> list[dict[str, Any]]:
    """Up to three position types where the player lost the most points (at least
    :data:`MIN_MISTAKE_DECISIONS` decisions each), most first: decisions, errors, points lost, PR and the
    trend of the last :data:`RECENT_GAMES` games against the earlier ones."""
    return _areas(stats, MIN_MISTAKE_DECISIONS, 3, language)


def monday(date: str) -> str:
    """The Monday of ``date``'s week (ISO dates).

    >>> monday("2026-12-06"), monday("2026-12-07")
    ('2026-11-30', '2026-12-07')
    """
    day = dt.date.fromisoformat(date)
    return (day - dt.timedelta(days=day.weekday())).isoformat()


#: the tasks of a plan's area: cards of that type answered this week, dailies solved this week
CARD_TASK, DAILY_TASK = 10, 3


def weekly_plan(stats: Mapping[str, Any] | None, today: str, language: str = "en") -> dict[str, Any]:
    """The plan of ``today``'s week (section 5.12): the two areas (position types with at least
    :data:`MIN_PLAN_DECISIONS` analysed decisions) where the player loses most, each with its tasks;
    empty, with ``reason``, when the data is short.  Deterministic in the counters: the store keeps the
    plan made on a week's first read for the rest of that week."""
    areas = _areas(stats, MIN_PLAN_DECISIONS, 2, language)
    week = monday(today)
    if not areas:
        types = (stats or {}).get("types") or {}
        most = max((t["decisions"] for t in types.values()), default=0)
        reason = (
            f"no position type has {MIN_PLAN_DECISIONS} analysed decisions yet (the most: {most}); "
            "analyse more of your matches"
        )
        return {"week": week, "areas": [], "reason": reason}
    for a in areas:
        exercise, lesson = PRACTICE.get(a["position_type"], ("take-point", "game-plans"))
        a["tasks"] = [
            {"kind": "cards", "position_type": a["position_type"], "target": CARD_TASK},
            {"kind": "daily", "target": DAILY_TASK},
            {"kind": "exercise", "exercise": exercise, "target": 1},
            {"kind": "lesson", "lesson": lesson, "target": 1},
        ]
    return {"week": week, "areas": areas, "reason": None}


def _rules(variant: str) -> Rules:
    return Rules.tavla() if variant.startswith("tavla") else Rules.international()


def blunder_cards(
    games: Sequence[GameAnalysis], side: int, ref: str, lang: str = "en"
) -> list[tuple[str, dict[str, Any]]]:
    """The player's blunders (loss >= 0.08) in ``games`` as cards: ``(source, puzzle)``, the puzzle in a
    daily puzzle's shape (checker plays: the candidates with where each leads and the reason; cube
    decisions: the three options and their costs), the source ``<ref>:<game>:<move>:<kind>`` (one card
    per decision); ``lang``: the analysis's language (:func:`decision_card`)."""
    out = []
    for g in games:
        for d in g.decisions:
            if d.player != side or not d.counts or d.loss < BLUNDER:
                continue
            puzzle = decision_card(d, g.variant, lang)
            if puzzle is not None:
                out.append((card_source(ref, d), puzzle))
    return out


def card_source(ref: str, d: Any) -> str:
    """The source of an analysed decision's card: ``<ref>:<game>:<index>:<kind>`` (one card each)."""
    return f"{ref}:{d.game}:{d.index}:{d.kind}"


def card_reason(d: Any, lang: str = "en") -> dict[str, str] | None:
    """The reason sentence of an analysed checker decision, as the daily cards keep theirs: ``{language:
    sentence}``, in every language of :func:`pulvezar.analysis.explain` when the decision kept its
    reasons (``d.reasons``, the codes behind ``d.explanation``, and they say what the sentence does), else
    ``{lang: d.explanation}`` (an analysis stored without them: its sentence, in the analysis's language
    ``lang``); None without a sentence (the best play was played, or a cube decision)."""
    from pulvezar.analysis.explain import LANGUAGES, Explanation, Reason

    if not d.explanation:
        return None
    try:
        reasons = tuple(
            Reason(str(r["code"]), float(r["better"]), float(r["other"]), 0.0, r.get("point"))
            for r in d.reasons
        )
        why = Explanation(d.best, d.played, reasons)
        texts: dict[str, str] = {language: why.text(language) for language in LANGUAGES}
    except (KeyError, TypeError, ValueError):  # reasons of another version: the sentence as stored
        return {lang: d.explanation}
    if d.explanation not in texts.values():  # reasons that do not say what the sentence does
        return {lang: d.explanation}
    return texts


def decision_card(d: Any, variant: str, lang: str = "en") -> dict[str, Any] | None:
    """An analysed decision (:class:`~pulvezar.analysis.match.DecisionAnalysis` of a game of ``variant``)
    as a card's puzzle; None when it cannot be one (a forced or a cube decision without its analysis).

    A checker play's puzzle keeps the analysis's explanation as its ``reason`` (:func:`card_reason`;
    ``lang``: the analysis's language, ``settings.lang``), which the cards and the Anki deck show."""
    rules = _rules(variant)
    common = {
        "rules": rules.name,
        "position_id": d.position_id,
        "match_id": d.match_id,
        "cube_value": d.cube_value,
        "position_type": {"kind": d.position_type, "side": d.position_side, "plan": d.plan},
        "game": d.game + 1,
        "move": d.move,
        "played": d.played,
        "played_loss": round(d.loss, 6),
    }
    if d.kind == "checker":
        if d.dice is None:
            return None
        position = Position.from_position_id(d.position_id)
        candidates = []
        for c in d.candidates:
            try:
                after = parse_play(c.notation, position, d.dice, rules).position.position_id
            except PulvezarError:
                return None  # a candidate this position does not have: no card
            candidates.append({"play": c.notation, "position_id": after, "loss": round(c.loss, 6)})
        best = next((c for c in candidates if c["play"] == d.best), None)
        if best is None:
            return None
        answer = {"play": best["play"], "position_id": best["position_id"]}
        dice = list(d.dice)
        card = {**common, "kind": "position", "dice": dice, "candidates": candidates, "answer": answer}
        reason = card_reason(d, lang)
        if reason is not None:
            card["reason"] = reason
        return card
    if d.cube is None:
        return None
    costs = {k: round(float(v), 6) for k, v in d.cube.costs.items()}
    double = costs.get("double", 1.0) <= 1e-9
    response = "take" if costs.get("take", 1.0) <= 1e-9 else "pass"
    options = [{"action": a} for a in ("no double", "double/take", "double/pass")]
    answer = {"action": d.cube.action, "double": double, "response": response, "costs": costs}
    return {**common, "kind": "cube", "dice": None, "candidates": options, "answer": answer}
