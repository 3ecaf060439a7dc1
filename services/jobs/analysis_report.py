"""An analysis job's report: each match's entry and the job's status, from its games' records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.jobs.chunked import timing
from services.jobs.provenance import job_engine, job_provenance
from services.jobs.states import JobState

Records = Sequence[Mapping[str, Any] | None]


def _done(r: Mapping[str, Any] | None) -> bool:
    return r is not None and "error" not in r


def _failed(r: Mapping[str, Any] | None) -> bool:
    return r is not None and "error" in r


def game_engines(records: Records, mine: Sequence[int], summary: Any) -> list[dict[str, Any]]:
    """The engines of a match's analysed games (``mine``: its chunks), as chunk records for
    :func:`~services.jobs.provenance.job_engine`: each game's record names its worker's; a record
    written before records did takes the match summary's (the stored analysis's ``engine``)."""
    stored = summary.get("engine") if isinstance(summary, Mapping) else None
    return [
        {"engine": records[n].get("engine") or stored}  # type: ignore[union-attr]
        for n in mine
        if _done(records[n])
    ]


def match_entry(
    m: int,
    info: Mapping[str, Any],
    mine: Sequence[int],
    chunks: Sequence[Sequence[int]],
    records: Records,
    state: str,
    summary: Any,
    analyses: Mapping[int, Any],
    with_games: bool,
) -> dict[str, Any]:
    """Match ``m``'s entry: its file, state, error, games done and, ``with_games``, each game's analysis;
    ``mine`` are its chunks, ``summary`` its summary once all its games are done."""
    n_done = sum(_done(records[n]) for n in mine)
    errors = [f"game {chunks[n][1] + 1}: {records[n]['error']}" for n in mine if _failed(records[n])]  # type: ignore[index]
    if errors:
        m_state = JobState.FAILED
    elif summary is not None:
        m_state = JobState.DONE
    elif state == JobState.CANCELLED:
        m_state = JobState.CANCELLED
    else:
        m_state = JobState.RUNNING if n_done or state == JobState.RUNNING else JobState.QUEUED
    entry: dict[str, Any] = {
        "match": m,
        "filename": info["filename"],
        "format": info["format"],
        "players": info["players"],
        "length": info["length"],
        "state": m_state,
        "error": "; ".join(errors) or None,
        "games_done": n_done,
        "games_total": len(mine),
    }
    if with_games:
        entry["games"] = [analyses.get(n) for n in mine]
    entry["summary"] = summary
    engine = job_engine(game_engines(records, mine, summary))[0]
    entry["provenance"] = engine.model_dump() if engine is not None else None
    return entry


def analysis_timing(
    spec: Mapping[str, Any], records: Records, state: str
) -> tuple[float | None, float | None]:
    """The ETA from the finished games' time per recorded action and the observed parallelism."""
    done = [_done(r) for r in records]
    finished = [r for r, d in zip(records, done, strict=True) if d and r is not None]
    per_game = [info["actions"] for info in spec["matches"]]
    actions = [per_game[m][g] if g < len(per_game[m]) else 1 for m, g in spec["chunks"]]
    done_actions = sum(a for a, d in zip(actions, done, strict=True) if d)
    left = sum(a for a, r in zip(actions, records, strict=True) if r is None)
    return timing(finished, done_actions, left, state)


def job_report(
    job_id: str,
    spec: Mapping[str, Any],
    state: str,
    records: Records,
    matches: list[dict[str, Any]],
    engines: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The job's status: state, counts, progress, ETA, the analysis settings, the engine its games agree
    on (``engines``: :func:`game_engines` of every match; see
    :func:`~services.jobs.provenance.job_provenance`) and the matches' entries."""
    eta, elapsed = analysis_timing(spec, records, state)
    errors = [f"match {x['match']}: {x['error']}" for x in matches if x["error"]]
    total = len(spec["chunks"])
    done = sum(_done(r) for r in records)
    return {
        "job_id": job_id,
        "kind": "analysis",
        "priority": spec["priority"],
        "level": spec["level"],
        "state": state,
        "error": "; ".join(errors)[:2000] or None,
        "games_done": done,
        "games_failed": sum(_failed(r) for r in records),
        "games_total": total,
        "progress": done / total if total else 0.0,
        "eta_s": eta,
        "elapsed_s": elapsed,
        "created": spec["created"],
        "settings": spec.get("settings"),
        **job_provenance(engines),
        "matches": matches,
    }
