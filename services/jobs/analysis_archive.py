"""What a finished match leaves: its checker plays in its owner's archive of positions ("similar positions",
added once per match) and its result and SGF in the durable store."""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any

logger = logging.getLogger("pulvezar.services.analysis")


_DATE = re.compile(r"^(\d{4})[.\-/](\d{2})[.\-/](\d{2})")


def archive_name(record: Any, digest: str) -> str:
    """The archive's name of an analysed match: players, length and the file's SHA-256 (so the same
    file analysed again replaces its entries rather than adding new ones)."""
    players = " vs ".join(p or "?" for p in record.players)
    length = f"{record.length}p" if record.length else "money"
    return f"{players[:80]} {length} {digest[:16]}"


def archive_entries(record: Any, games: Sequence[Any], digest: str) -> list[dict[str, Any]]:
    """One archive entry per analysed checker play (one per move: the entry id is match:game:move),
    in the format of :meth:`services.store.archive.SqlArchive.add_match_positions`."""
    from pulvezar.analysis.match import record_rules

    tags = {k.lower(): str(v) for k, v in record.tags.items()}
    found = _DATE.match(tags.get("eventdate") or tags.get("date") or tags.get("dt") or "")
    date = "-".join(found.groups()) if found else None
    rules = record_rules(record).name
    name = archive_name(record, digest)
    out = []
    for ga in games:
        for d in ga.decisions:
            if d.kind != "checker":
                continue
            entry: dict[str, Any] = {
                "match": name,
                "game": ga.index + 1,
                "move": d.move,
                "position_id": d.position_id,
                "match_id": d.match_id,
                "play": d.played,
                "dice": list(d.dice) if d.dice is not None else None,
                "rules": rules,
            }
            if d.position_type:
                entry["kind"], entry["side"] = d.position_type, d.position_side
            if date:
                entry["date"] = date
            out.append(entry)
    return out


#: matches whose archive write failed (``"{job}|{m}"``), retried by the reconciler
ARCHIVE_RETRY_KEY = "archive:retry"


def archive_match(
    archive: Any,
    job_id: str,
    m: int,
    record: Any,
    games: Sequence[Any],
    data: bytes,
    redis_client: Any = None,
) -> int:
    """Best effort: add the checker plays of an analysed match to its owner's archive of positions
    ("similar positions": ``archive`` is a :class:`services.store.archive.SqlArchive`), once per match of
    a job (the caller won the summary's ``SET NX``).  Returns how many entries were written; 0 when the
    archive refuses them (logged): an analysis never fails because of the archive.  With ``redis_client``,
    a failed write (the database down) is noted under :data:`ARCHIVE_RETRY_KEY` for the reconciler to
    retry (entries are written by id, so a retry writes the same entries once).
    """
    try:
        entries = archive_entries(record, games, hashlib.sha256(data).hexdigest())
        return int(archive.add_match_positions(entries))
    except Exception:
        fields = {"fields": {"job": job_id, "match": m}}
        noted = False
        if redis_client is not None:
            try:
                noted = bool(redis_client.sadd(ARCHIVE_RETRY_KEY, f"{job_id}|{m}") is not None)
            except Exception:
                logger.warning("archive retry not noted", exc_info=True)
        if noted:  # the reconciler writes it later: a warning, not an error
            logger.warning("archive of analysed positions failed; retried later", exc_info=True, extra=fields)
        else:
            logger.exception("archive of analysed positions failed", extra=fields)
        return 0


def owner_archive(records: Any, owner: str | None) -> Any:
    """The archive of positions of a job's owner, in the durable store (``records``:
    :class:`services.store.jobs.JobRecords`)."""
    from services.store.archive import SqlArchive

    return SqlArchive(records.url, owner or "")


def store_match_result(
    records: Any, job_id: str, m: int, record: Any, games: list[Any], summary: Any
) -> None:
    """Match ``m``'s result JSON and annotated SGF into the durable store (best effort: without them
    they are made again from the stored games and file)."""
    try:
        from pulvezar.analysis.match import annotated_sgf, summarise

        sgf = annotated_sgf(record, summarise(record, games))
        records.put_blob(job_id, f"summary:{m}", json.dumps(summary).encode())
        records.put_blob(job_id, f"sgf:{m}", sgf.encode())
    except Exception:
        logger.warning("match result not stored durably", exc_info=True)


def record_for_learner(
    url: str, learner: Mapping[str, Any], job_id: str, m: int, games: list[Any], summary: Any
) -> bool:
    """Best effort: match ``m``'s analysis into the record of the player it was sent for
    (:func:`services.store.player_matches.record_analysis`, once per match); False when it was not
    (logged): an analysis never fails because of the learner's record."""
    from services.store.player_matches import record_analysis

    try:
        return record_analysis(url, learner, job_id, m, games, summary)
    except Exception:
        logger.exception("learner's record not updated", extra={"fields": {"job": job_id, "match": m}})
        return False
