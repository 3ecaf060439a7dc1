"""Match files: read in a parser process (:mod:`services.gateway.uploads`) into games, decisions and their
IDs, and, with the durable store, kept for the key that sent them
(:class:`services.store.matches.MatchUploads`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pulvezar import XGID, PulvezarError
from pulvezar.formats import MatchRecord
from pulvezar.formats.files import detect_format, read_bytes
from services.common.sandbox import ParsePool
from services.gateway.durable import store_call
from services.gateway.match_models import ActionOut, DecisionOut, GameOut, MatchOut, UploadList, UploadSummary
from services.gateway.problems import ProblemError, invalid
from services.gateway.services.paging import page
from services.gateway.uploads import parse_in

if TYPE_CHECKING:
    from services.store.matches import MatchUploads


def format_of(filename: str | None, data: bytes, given: str | None) -> str:
    """The format the client named, else what the file's name or first bytes say."""
    return given or detect_format(data, filename)


def _xgid(d: Any) -> str | None:
    try:
        return XGID.from_match_id(d.position, d.match_id).encode()
    except PulvezarError:
        return None


def _convert(record: MatchRecord, fmt: str, filename: str | None) -> MatchOut:
    def action(a: Any) -> ActionOut:
        return ActionOut(player=a.player, kind=a.kind, dice=a.dice, notation=a.notation, value=a.value)

    decisions = [
        DecisionOut(
            game=d.game,
            index=d.index,
            player=d.action.player,
            kind=d.action.kind,
            dice=d.match_id.dice if d.match_id.dice[0] else None,
            notation=d.action.notation,
            position_id=d.position.position_id,
            match_id=d.match_id.encode(),
            gnubg_id=d.gnubg_id,
            xgid=_xgid(d),
        )
        for d in record.replay()
    ]
    return MatchOut(
        format=fmt,
        filename=filename,
        length=record.length,
        players=record.players,
        tags=record.tags,
        comments=record.comments,
        cut_games=record.cut_games,
        games=[
            GameOut(
                number=g.number,
                score=g.score,
                crawford=g.crawford,
                winner=g.winner,
                points=g.points,
                cut_at=g.cut_at,
                notes=g.notes,
                actions=[action(a) for a in g.actions],
            )
            for g in record.games
        ],
        decisions=decisions,
    )


def read_upload(data: bytes, fmt: str, filename: str | None) -> dict[str, Any]:
    """The answer to an upload, as plain data (run in a parser process: :data:`READ_TARGET`);
    :class:`~services.common.sandbox.ParseRejected` naming ``file`` when the file cannot be read."""
    from services.common.sandbox import ParseRejected

    try:
        record = read_bytes(data, fmt)
        return _convert(record, fmt, filename).model_dump()
    except PulvezarError as e:
        raise ParseRejected("file", str(e)) from None
    except MemoryError:
        raise
    except Exception as e:  # a reader's failure on a bad file is still the file's problem
        raise ParseRejected("file", f"not a readable .{fmt} file ({type(e).__name__}: {e})") from None


#: what a parser process runs for an upload (tests point it at a deliberately slow reader)
READ_TARGET = f"{__name__}:read_upload"


async def parsed(pool: ParsePool, data: bytes, fmt: str, filename: str | None) -> MatchOut:
    """The match of a file, read in a parser process (a file it cannot read: 422 naming ``file``)."""
    return MatchOut.model_validate(await parse_in(pool, READ_TARGET, data, fmt, filename))


@dataclass(frozen=True)
class Shelf:
    """What a call on the caller's uploads needs: the uploads' records, the caller's owner, the parser
    pool."""

    uploads: MatchUploads
    owner: str
    pool: ParsePool


async def upload(s: Shelf, data: bytes, fmt: str | None, filename: str | None) -> MatchOut:
    """The match of an uploaded file, kept for the caller (its ``id``)."""
    if not data:
        raise invalid("file", "the file is empty")
    fmt = format_of(filename, data, fmt)
    out = await parsed(s.pool, data, fmt, filename)
    row, _ = await store_call(s.uploads.put, s.owner, data, fmt, filename, _summary(out))
    out.id = row.id
    return out


def _summary(out: MatchOut) -> dict[str, Any]:
    return {
        "players": list(out.players),
        "length": out.length,
        "games": len(out.games),
        "decisions": len(out.decisions),
    }


def _listed(row: Any) -> UploadSummary:
    return UploadSummary(
        id=row.id,
        filename=row.filename,
        format=row.format,
        players=tuple(row.summary["players"]),
        length=row.summary["length"],
        games=row.summary["games"],
        decisions=row.summary["decisions"],
        created=row.created_at,
        href=f"/v1/matches/{row.id}",
    )


def _missing(uid: str) -> ProblemError:
    return ProblemError(404, f"no match {uid!r}", kind="not-found", errors=[("match_id", "unknown match")])


async def listed(s: Shelf, limit: int, cursor: str | None) -> UploadList:
    rows, nxt = await page(s.uploads.list, s.owner, limit=limit, cursor=cursor)
    return UploadList(matches=[_listed(r) for r in rows], next_cursor=nxt)


async def stored_file(s: Shelf, match_id: str) -> tuple[Any, bytes]:
    """An upload's row and bytes; 404 for another key's or none."""
    uploads = s.uploads
    row = await store_call(uploads.get, s.owner, match_id)
    data = await store_call(uploads.data, s.owner, match_id) if row is not None else None
    if row is None or data is None:
        raise _missing(match_id)
    return row, data


async def get(s: Shelf, match_id: str) -> MatchOut:
    """An upload, as its upload answered."""
    row, data = await stored_file(s, match_id)
    out = await parsed(s.pool, data, row.format, row.filename)
    out.id = row.id
    return out


async def delete(s: Shelf, match_id: str) -> None:
    if not await store_call(s.uploads.delete, s.owner, match_id):
        raise _missing(match_id)
