"""The annotated SGF of a match analysis: gnubg's analysis properties and a comment per decision."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from pulvezar.analysis.matchanalysis.replay import record_rules
from pulvezar.analysis.matchanalysis.results import (
    AnalysisSettings,
    DecisionAnalysis,
    MatchAnalysis,
)
from pulvezar.formats.record import MatchRecord
from pulvezar.formats.sgf import move_letters, write_annotated_sgf
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules


def annotated_sgf(record: MatchRecord, analysis: MatchAnalysis) -> str:
    """GNU Backgammon SGF of ``record`` with ``analysis`` in gnubg's properties and a comment per decision;
    the first game's root ``GC`` (gnubg's match comment) says which net and settings made the analysis
    (:func:`provenance_comment`), after the file's own comment, if it had one."""
    own = [line for line in record.tags.get("GC", "").splitlines() if not line.startswith(_PROVENANCE)]
    tags = {**record.tags, "GC": "\n".join([*own, provenance_comment(analysis)])}
    return write_annotated_sgf(dataclasses.replace(record, tags=tags), _annotations(record, analysis))


_PROVENANCE = "Analysed by pulvezar"


def provenance_comment(analysis: MatchAnalysis) -> str:
    """One line naming the engine (pulvezar's version, the net's name and SHA-256) and the settings of
    ``analysis``: its level, each search's depth, the move filter and, at 1 ply or deeper, whether the
    searches pruned.

    >>> engine = {"version": "1.0", "model": "pulvezar-v4", "model_sha256": "ab" * 32}
    >>> a = MatchAnalysis(("a", "b"), 7, "international", (), AnalysisSettings.from_level("2ply"), engine)
    >>> head, how = provenance_comment(a).split("; ")
    >>> head[:59], head.endswith("abab)")
    ('Analysed by pulvezar 1.0 with the net pulvezar-v4 (SHA-256 ', True)
    >>> how
    'level 2ply: checker plays 2-ply, filter normal, cube 2-ply, luck 0-ply, pruned search.'
    """
    from pulvezar.eval.provenance import EngineInfo

    e, s = EngineInfo.from_json(analysis.engine), analysis.settings
    net = f"the net {e.model or 'unknown'} (SHA-256 {e.model_sha256 or 'unknown'})"
    search = f"checker plays {s.ply}-ply, filter {s.filter}, cube {s.cube_ply}-ply, luck {s.luck_ply}-ply"
    if s.deep:
        cut = f", truncated at {s.deep_truncate} moves" if s.deep_truncate is not None else ""
        search += f", deep: {s.deep_ply}-ply rollouts of {s.deep_trials} trials{cut}"
    if max(s.ply, s.cube_ply, s.luck_ply) > 0 or s.deep:
        search += ", pruned search" if s.prune else ", unpruned search"
    return f"{_PROVENANCE} {e.version} with {net}; level {s.level}: {search}."


def _annotations(record: MatchRecord, analysis: MatchAnalysis) -> dict[tuple[int, int], dict[str, list[str]]]:
    """SGF properties per (game, action): gnubg's ``A``/``DA``/``LU``/marks and a ``C`` comment."""
    rules = record_rules(record)
    out: dict[tuple[int, int], dict[str, list[str]]] = {}
    marks: dict[tuple[int, int], dict[str, list[str]]] = {}
    for g in analysis.games:
        acts = record.games[g.index].actions
        for d in g.decisions:
            at = d.index
            if d.kind == "double" and d.played == "no double":
                # gnubg keeps the cube analysis of the roller's no-double on the play node
                nxt = next((i for i in range(d.index + 1, len(acts)) if acts[i].kind == "play"), None)
                if nxt is None:
                    continue
                at = nxt
            key = (g.index, at)
            props = out.setdefault(key, {})
            if d.kind == "checker":
                props.update(_move_props(d, rules, analysis.settings))
            else:
                props["DA"] = [_cube_da(d)]
            comment = _comment(d)
            if comment:
                props["C"] = [" ".join([*props.get("C", []), comment])]
            marks[key] = max(marks.get(key, {}), _skill(d), key=_severity)
    for (gi, ai), mark in marks.items():
        props = out[(gi, ai)]
        # gnubg 1.07 crashes on a skill mark on a play node without move analysis
        # (a forced play, or no move): such a node keeps its comment only
        if mark and not (record.games[gi].actions[ai].kind == "play" and "A" not in props):
            props.update(mark)
    return out


def _severity(marks: dict[str, list[str]]) -> int:
    if "BM" in marks:
        return 1 + int(marks["BM"][0])
    return 1 if "DO" in marks else 0


def _gnubg_eval(probs: Sequence[float], value: float, ply: int | str, settings: AnalysisSettings) -> str:
    depth = settings.deep_ply if ply == "deep" else ply
    p = " ".join(f"{float(x):.6f}" for x in probs)
    return f"E ver 3 {p} {value:.6f} {depth}C 0 1 0.000000 1"


def _skill(d: DecisionAnalysis) -> dict[str, list[str]]:
    if d.mark == "blunder":
        return {"BM": ["2"]}
    if d.mark == "error":
        return {"DO": [""]}
    return {}


def _move_props(d: DecisionAnalysis, rules: Rules, settings: AnalysisSettings) -> dict[str, list[str]]:
    props: dict[str, list[str]] = {}
    if not d.forced and d.dice is not None:
        legal = rules.legal_plays(Position.from_position_id(d.position_id), d.dice)
        cands = list(d.candidates)
        played_at = next((i for i, c in enumerate(cands) if c.notation == d.played), None)
        props["A"] = [str(played_at or 0)] + [
            move_letters(legal.find(c.notation), d.player)
            + " "
            + _gnubg_eval(c.probs, c.equity, c.ply, settings)
            for c in cands
        ]
    if d.luck is not None:
        props["LU"] = [f"{d.luck.value:.5f}"]
        level = {"lucky": 1, "very lucky": 2, "unlucky": 1, "very unlucky": 2}.get(d.luck.mark)
        if level:
            good_for = d.player if d.luck.value > 0 else 1 - d.player
            props["GW" if good_for == 0 else "GB"] = [str(level)]
    return props


def _cube_da(d: DecisionAnalysis) -> str:
    """gnubg's ``DA`` form: the evaluation twice, each with the cubeless equity and a cube figure.

    The figures are no double and double/take: match-winning chances in a
    match (gnubg's form), normalised equity in a money game.
    """
    c = d.cube
    assert c is not None
    p = " ".join(f"{float(x):.6f}" for x in c.probs)
    cubeless = c.probs[0] * 2 - 1 + c.probs[1] - c.probs[3] + c.probs[2] - c.probs[4]
    nd = c.mwc_nd if c.mwc_nd is not None else c.nd
    dt = c.mwc_dt if c.mwc_dt is not None else c.dt
    dt = nd if dt is None else dt
    return f"E ver 3 {c.ply}C 1 0.000000 1 {p} {cubeless:.6f} {nd:.6f} {p} {cubeless:.6f} {dt:.6f}"


def _comment(d: DecisionAnalysis) -> str:
    """A readable line per decision for the SGF ``C`` property."""
    if d.kind == "checker":
        if d.forced:
            return f"{d.dice[0] if d.dice else ''}{d.dice[1] if d.dice else ''}: forced"
        head = f"pulvezar: {d.played}" + (f" {d.symbol}" if d.symbol else "")
        if d.loss > 0 and d.best != d.played:
            head += f" (best {d.best}, loss {d.loss:.3f})"
        parts = [head, f"type {d.position_type}"]
        if d.explanation:
            parts.append(d.explanation)
        if d.luck is not None and d.luck.mark:
            parts.append(f"roll: {d.luck.mark} ({d.luck.value:+.3f})")
        return "; ".join(parts)
    assert d.cube is not None
    c = d.cube
    head = f"pulvezar cube: {d.played}" + (f" {d.symbol}" if d.symbol else "")
    if d.category:
        head += f" -- {d.category}, cost {d.loss:.3f}"
    figures = f"ND {c.nd:+.3f}" + (f", DT {c.dt:+.3f}" if c.dt is not None else "")
    figures += f", DP {c.dp:+.3f}" if c.dp is not None else ""
    return f"{head}; right: {c.action} ({figures})"
