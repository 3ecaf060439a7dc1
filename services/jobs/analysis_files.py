"""The match files of analysis jobs: levels, limits, formats, reading a file and what a job keeps of it.

A stream of matches (OGXM's ``.ogxms``, ``.ogxms.zst``: format ``ogxms``) is one upload whose members
become the job's matches (:func:`stream_summary`): each readable member is kept as its own ``.ogxm``
file; a skipped member (with its reason) and a truncated tail (where it stopped) are kept in the job's
``streams``.  A zip archive of match files (format ``zip``: :func:`zip_summary`) is the same: each
readable file in it is a match, the others are skipped with their reasons.  Both are read in the
gateway's parser sandbox like any file, so an upload holds what its parse budget reads
(:func:`parse_budget`, measured: ~16 ms of CPU a 1-point OGXM member, ~40 ms a 7-point one, ~40 ms a
10 KB .mat file); past it the read stops with a refusal naming the field (:class:`ReadBudget`), before
the parser process is killed for its CPU or wall-clock limit.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from pulvezar.formats.files import FORMATS, detect_format
from services.common import sandbox
from services.jobs.errors import InvalidJob
from services.jobs.settings import QUEUES

#: the analysis depths, cheapest first: the library's ANALYSIS_DEPTHS (pulvezar.analysis.match), named here
#: without importing the analysis library (the gateway reads this module)
ANALYSIS_DEPTHS = ("0ply", "1ply", "2ply", "3ply", "deep")
AnalysisDepth = Literal["0ply", "1ply", "2ply", "3ply", "deep"]


class AnalysisJobSettings(BaseSettings):
    """Limits of analysis jobs, from ``PULVEZAR_ANALYSIS_<NAME>`` (the gateway and the workers read them)."""

    model_config = SettingsConfigDict(env_prefix="PULVEZAR_ANALYSIS_")

    max_level: AnalysisDepth = Field("2ply", description="the deepest level a job may ask for")
    default_level: AnalysisDepth = Field("2ply", description="the level of a job that names none")
    max_matches: int = Field(100, ge=1, description="matches of one 'analyse all' job")
    max_games: int = Field(2000, ge=1, description="games (chunks) of one job, all matches together")
    max_file_bytes: int = Field(4 * 1024 * 1024, ge=1, description="bytes of one match file (or stream)")
    max_stream_bytes: int = Field(
        64 * 1024 * 1024, ge=1, description="bytes an uploaded stream of matches decompresses to"
    )


#: the format of an uploaded stream of matches (its members are the job's matches)
STREAM_FORMAT = "ogxms"
#: the format of an uploaded zip archive of match files (each one a match of the job)
ZIP_FORMAT = "zip"
#: the formats whose upload is many matches
BATCH_FORMATS = (STREAM_FORMAT, ZIP_FORMAT)
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_ZIP_MAGIC = b"PK\x03\x04"


def read_record(data: bytes, fmt: str, field: str = "file") -> Any:
    """The :class:`pulvezar.formats.MatchRecord` of a match file (:func:`pulvezar.formats.files.read_bytes`);
    :class:`InvalidJob` naming ``field`` when it cannot be read (with the line and column a
    :class:`~pulvezar.formats.MatchFileError` gives)."""
    from pulvezar import PulvezarError
    from pulvezar.formats.files import read_bytes

    if fmt not in FORMATS:
        raise InvalidJob("format", f"one of {', '.join(FORMATS)}, got {fmt!r}")
    try:
        return read_bytes(data, fmt)
    except PulvezarError as e:  # MatchFileError: "line L, column C: ..."
        raise InvalidJob(field, f"not a readable .{fmt} file: {e}") from None
    except Exception as e:  # a reader's failure on a bad file is still the file's problem
        raise InvalidJob(field, f"not a readable .{fmt} file ({type(e).__name__}: {e})") from None


#: the shares of the parser process's CPU and wall-clock limits a stream's or archive's read may spend
#: before it stops with a clear refusal (the rest: the last member's read, the reply, the wait for a
#: free parser process, which the wall-clock limit also counts)
BUDGET_SHARE = (0.8, 0.7)


def parse_budget() -> tuple[float, float]:
    """The CPU and wall-clock seconds a stream's or archive's read may spend: :data:`BUDGET_SHARE` of the
    gateway's parse limits (``PULVEZAR_GATEWAY_PARSE_CPU_S``, ``PULVEZAR_GATEWAY_PARSE_TIMEOUT_S``:
    :class:`services.common.sandbox.ParseSettings`, read in the parser process from the same environment)."""
    limits = sandbox.ParseSettings()
    return limits.cpu_s * BUDGET_SHARE[0], limits.timeout_s * BUDGET_SHARE[1]


class ReadBudget:
    """The time a stream's or archive's read has spent, checked after each member: past ``budget``
    (CPU seconds, wall-clock seconds; :func:`parse_budget` when None) :class:`InvalidJob` naming
    ``field``, saying how many members were read and which limits to raise (or to split the upload).
    CPU time is this thread's (a parser process reads in one; an in-process read is not charged for
    other threads)."""

    def __init__(self, what: str, field: str, budget: tuple[float, float] | None = None) -> None:
        self.what, self.field = what, field
        self.cpu_s, self.wall_s = budget if budget is not None else parse_budget()
        self.cpu0, self.wall0 = time.thread_time(), time.monotonic()

    def check(self, read: int) -> None:
        cpu, wall = time.thread_time() - self.cpu0, time.monotonic() - self.wall0
        if cpu > self.cpu_s or wall > self.wall_s:
            raise InvalidJob(
                self.field,
                f"the {self.what} is larger than this gateway reads in one upload: its first {read} members "
                f"took {cpu:.1f} s of CPU ({wall:.1f} s), the budget is {self.cpu_s:.1f} s of CPU and "
                f"{self.wall_s:.1f} s (PULVEZAR_GATEWAY_PARSE_CPU_S, PULVEZAR_GATEWAY_PARSE_TIMEOUT_S); "
                "upload it in smaller parts",
            )


def _container(
    what: str,
    field: str,
    members: list[dict[str, Any]],
    skipped: list[dict[str, Any]],
    truncated: dict[str, Any] | None,
    decompressed: int,
) -> dict[str, Any]:
    """A stream's or archive's summary (its readable members, the skipped ones, where it stopped);
    :class:`InvalidJob` naming ``field`` when no member is readable (the reasons why, shortened)."""
    if not members:
        why = "; ".join(x["reason"] for x in [*skipped, *([truncated] if truncated else [])])[:500]
        raise InvalidJob(field, f"the {what} holds no readable match{f' ({why})' if why else ''}")
    return {
        "stream": True, "members": members, "skipped": skipped, "truncated": truncated,
        "decompressed_bytes": decompressed,
    }  # fmt: skip


def file_summary(data: bytes, fmt: str, field: str = "file") -> dict[str, Any]:
    """What a job keeps of a match file's games: ``length``, ``players`` and ``actions`` (per game);
    :class:`InvalidJob` naming ``field`` when it cannot be read or holds no game.  A stream (``fmt``
    :data:`STREAM_FORMAT`): :func:`stream_summary`."""
    if fmt == STREAM_FORMAT:
        return stream_summary(data, field)
    if fmt == ZIP_FORMAT:
        return zip_summary(data, field)
    record = read_record(data, fmt, field)
    if not record.games:
        raise InvalidJob(field, "the file holds no game")
    return {
        "length": record.length,
        "players": list(record.players),
        "actions": [len(g.actions) for g in record.games],
    }


def _decompressed(data: bytes, cap: int, field: str) -> tuple[bytes, str | None]:
    """A stream's bytes, decompressed when they are zstd's (at most ``cap``, else :class:`InvalidJob`
    naming ``field``), and why decompression stopped early (corrupt data), if it did."""
    if data[:4] != _ZSTD_MAGIC:
        if len(data) > cap:
            raise InvalidJob(field, f"the stream has {len(data)} bytes, at most {cap} (max_stream_bytes)")
        return data, None
    import io

    import zstandard

    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True)
    out = bytearray()
    while True:
        try:
            part = reader.read(min(1 << 16, cap + 1 - len(out)))
        except zstandard.ZstdError as e:  # corrupt from here: what came before is read
            return bytes(out), f"the zstd data stops decompressing at byte {len(out)}: {e}"
        if not part:
            return bytes(out), None
        out += part
        if len(out) > cap:
            raise InvalidJob(field, f"the stream decompresses to more than {cap} bytes (max_stream_bytes)")


def stream_summary(
    data: bytes,
    field: str = "file",
    limits: AnalysisJobSettings | None = None,
    budget: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """What a job keeps of a stream of matches (:func:`pulvezar.formats.ogxm.iter_ogxm_stream`):
    ``members`` (each readable match: its ``.ogxm`` bytes as ``data``, ``member`` (its index among the
    stream's members), ``offset`` and ``length`` in the decompressed stream, ``digest``, and
    :func:`file_summary`'s fields), ``skipped`` (``member``, ``offset``, ``length``, ``reason``),
    ``truncated`` (``offset``, ``length``, ``reason``, or None) and ``decompressed_bytes``.  The caps:
    ``limits.max_stream_bytes`` (decompressed), ``limits.max_matches`` (members) and the read's time
    (:class:`ReadBudget`, ``budget``); beyond them, or a stream without a readable match,
    :class:`InvalidJob` naming ``field``."""
    from pulvezar import PulvezarError
    from pulvezar.formats.limits import DEFAULT_LIMITS
    from pulvezar.formats.ogxm import iter_ogxm_stream

    limits = limits or AnalysisJobSettings()
    clock = ReadBudget("stream", field, budget)
    plain, stopped = _decompressed(bytes(data), limits.max_stream_bytes, field)
    caps = dataclasses.replace(
        DEFAULT_LIMITS,
        ogxm_max_stream_bytes=max(limits.max_stream_bytes, 1),
        ogxm_max_decompressed_bytes=max(limits.max_stream_bytes, 1),
        ogxm_max_matches=limits.max_matches,
    )
    members: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    truncated: dict[str, Any] | None = None
    try:
        for n, e in enumerate(iter_ogxm_stream(plain, limits=caps), 1):
            clock.check(n)
            where = {"offset": e.offset, "length": e.length}
            if e.kind == "truncated":
                truncated = {**where, "reason": e.reason}
            elif e.kind == "skipped" or e.record is None:
                skipped.append({"member": None if e.index < 0 else e.index, **where, "reason": e.reason})
            elif not e.record.games:
                skipped.append({"member": e.index, **where, "reason": "the match holds no game"})
            else:
                r = e.record
                members.append({
                    "data": plain[e.offset : e.offset + e.length], "member": e.index, **where,
                    "digest": e.digest, "length": r.length, "players": list(r.players),
                    "actions": [len(g.actions) for g in r.games],
                })  # fmt: skip
    except PulvezarError as e:  # a cap (FileTooLargeError names it), or a stream that is not OGXM
        cap = getattr(e, "cap", None)
        if cap == "ogxm_max_matches":
            raise InvalidJob(
                field, f"the stream holds more than {limits.max_matches} matches (max_matches)"
            ) from None
        raise InvalidJob(field, f"not a readable match stream: {e}") from None
    if stopped is not None and truncated is None:
        truncated = {"offset": len(plain), "length": 0, "reason": stopped}
    return _container("stream", field, members, skipped, truncated, len(plain))


def _zip_member(zf: Any, info: Any, n: int, field: str, limits: AnalysisJobSettings) -> dict[str, Any]:
    """One file of a zip archive as :func:`zip_summary` keeps it: a match (``data`` and
    :func:`file_summary`'s fields) or ``skipped`` (its ``reason``)."""
    import hashlib
    import zipfile
    import zlib

    where = {"member": n, "offset": info.header_offset, "length": info.compress_size}
    name = str(info.filename)
    ext = name.rsplit(".", 1)[-1].lower() if "." in name.rsplit("/", 1)[-1] else ""
    if ext not in (*FORMATS, "txt"):
        return {
            **where,
            "skipped": True,
            "reason": f"{name}: not a match file ({', '.join(f'.{f}' for f in (*FORMATS, 'txt'))})",
        }
    try:
        with zf.open(info) as f:
            raw = f.read(limits.max_file_bytes + 1)
    except (zipfile.BadZipFile, zlib.error, RuntimeError, NotImplementedError, EOFError, OSError) as e:
        return {**where, "skipped": True, "reason": f"{name}: cannot be unpacked ({e})"}
    if len(raw) > limits.max_file_bytes:
        raise InvalidJob(field, f"{name} has more than {limits.max_file_bytes} bytes (max_file_bytes)")
    fmt = detect_format(raw, name)
    try:
        summary = file_summary(raw, fmt, field)
    except InvalidJob as e:
        return {**where, "skipped": True, "reason": f"{name}: {e.message}", "bytes": len(raw)}
    return {
        "data": raw,
        "format": fmt,
        "name": name,
        **where,
        "digest": hashlib.sha256(raw).hexdigest(),
        **summary,
    }


def zip_summary(
    data: bytes,
    field: str = "file",
    limits: AnalysisJobSettings | None = None,
    budget: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """What a job keeps of a zip archive of match files, as :func:`stream_summary` of a stream: each readable
    file (by its name's extension: one of :data:`~pulvezar.formats.files.FORMATS` or .txt) is a member
    (``digest``: the SHA-256 of its bytes; ``name``: its path in the archive); other files are ``skipped``
    with the reason; directories are left out. Caps: ``limits.max_matches`` files, ``limits.max_file_bytes``
    per file and ``limits.max_stream_bytes`` unpacked in all, each read at most one byte past its cap (a zip
    bomb stops there) and the read's time (:class:`ReadBudget`, ``budget``); beyond them, an unreadable
    archive or one without a readable match, :class:`InvalidJob` naming ``field``."""
    import io
    import zipfile

    limits = limits or AnalysisJobSettings()
    clock = ReadBudget("archive", field, budget)
    try:
        zf = zipfile.ZipFile(io.BytesIO(bytes(data)))
        entries = [i for i in zf.infolist() if not i.is_dir()]
    except (zipfile.BadZipFile, ValueError, OSError) as e:
        raise InvalidJob(field, f"not a readable zip archive: {e}") from None
    if len(entries) > limits.max_matches:
        raise InvalidJob(
            field, f"the archive holds {len(entries)} files, at most {limits.max_matches} (max_matches)"
        )
    members: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    total = 0
    for n, info in enumerate(entries):
        entry = _zip_member(zf, info, n, field, limits)
        clock.check(n + 1)
        total += len(entry.get("data", b"")) + int(entry.pop("bytes", 0))
        if total > limits.max_stream_bytes:
            raise InvalidJob(
                field, f"the archive unpacks to more than {limits.max_stream_bytes} bytes (max_stream_bytes)"
            )
        if entry.pop("skipped", False):
            skipped.append(entry)
        else:
            members.append(entry)
    return _container("archive", field, members, skipped, None, total)


#: what reads a submitted file: in a parser process within the gateway's ``sandbox.isolated`` block
#: (tests point it at a deliberately slow reader)
SUMMARY_TARGET = f"{__name__}:file_summary"


def level_settings(level: str, prune: bool = True) -> Any:
    """The library's :class:`~pulvezar.analysis.match.AnalysisSettings` of a level (``prune``: its
    searches prune their replies, the default; ``False``: unpruned)."""
    from pulvezar.analysis.match import AnalysisSettings

    return AnalysisSettings.from_level(level, prune=prune)


def stream_format(data: bytes, filename: str | None) -> str | None:
    """:data:`STREAM_FORMAT` for a stream of matches (named ``.ogxms`` or ``.ogxms.zst``, or
    zstd-compressed), :data:`ZIP_FORMAT` for a zip archive (by name or magic), else None."""
    name = (filename or "").lower()
    if name.endswith((".ogxms", ".ogxms.zst")) or data[:4] == _ZSTD_MAGIC:
        return STREAM_FORMAT
    if name.endswith(".zip") or data[:4] == _ZIP_MAGIC:
        return ZIP_FORMAT
    return None


def file_call(entry: Mapping[str, Any], prefix: str, limits: AnalysisJobSettings) -> tuple[Any, ...]:
    """The checked arguments of an entry's read: ``(data, fmt, field, filename)``; :class:`InvalidJob`
    naming ``{prefix}file`` (or format, filename)."""
    if not isinstance(entry, Mapping):
        raise InvalidJob(prefix.rstrip(".") or "file", f"an object is required, got {type(entry).__name__}")
    raw = entry.get("data")
    if isinstance(raw, str):
        data = raw.encode("utf-8")
    elif isinstance(raw, bytes | bytearray):
        data = bytes(raw)
    else:
        raise InvalidJob(f"{prefix}file", "the match file is required")
    if not data.strip():
        raise InvalidJob(f"{prefix}file", "the file is empty")
    if len(data) > limits.max_file_bytes:
        raise InvalidJob(f"{prefix}file", f"a match file may have at most {limits.max_file_bytes} bytes")
    filename = entry.get("filename")
    if filename is not None and (not isinstance(filename, str) or len(filename) > 200):
        raise InvalidJob(f"{prefix}filename", "a file name is a string of at most 200 characters")
    fmt = entry.get("format") or stream_format(data, filename) or detect_format(data, filename)
    if fmt == "txt":
        fmt = "mat"
    if fmt not in (*FORMATS, *BATCH_FORMATS):
        raise InvalidJob(f"{prefix}format", f"one of {', '.join((*FORMATS, *BATCH_FORMATS))}, got {fmt!r}")
    return data, fmt, f"{prefix}file", filename


def read_match(
    entry: Mapping[str, Any], prefix: str, limits: AnalysisJobSettings
) -> tuple[bytes, dict[str, Any]]:
    """One entry of a job's ``matches``: the file's bytes and what the job keeps of it (format, players,
    length, actions per game); :class:`InvalidJob` naming ``{prefix}file`` (or format, filename).  The
    file is read by :data:`SUMMARY_TARGET` through :func:`services.common.sandbox.run` (in a parser
    process where the caller is :func:`~services.common.sandbox.isolated`)."""
    data, fmt, field, filename = file_call(entry, prefix, limits)
    try:
        summary = sandbox.run(SUMMARY_TARGET, data, fmt, field, field=field)
    except sandbox.ParseRejected as e:
        raise InvalidJob(e.field or field, e.reason) from None
    except (sandbox.ParseTooSlow, sandbox.ParseTooLarge) as e:
        raise InvalidJob(field, e.reason) from None
    return data, {"filename": filename, "format": fmt, "bytes": len(data), **summary}  # a stream: members


def entry_prefix(m: int, single: bool) -> str:
    """The field prefix of entry ``m`` of a job's matches (none for a job of one file)."""
    return "" if single else f"matches[{m}]."


def _expand(
    m: int, data: bytes, info: dict[str, Any], field: str, limits: AnalysisJobSettings
) -> tuple[list[bytes], list[dict[str, Any]], dict[str, Any]]:
    """A stream's or zip's matches (one file per readable member, what the job keeps of each) and its
    own entry in the job's ``streams``; :class:`InvalidJob` naming ``field`` beyond
    ``limits.max_stream_bytes`` or a member beyond ``limits.max_file_bytes`` (the parser read it with
    the platform's settings, which may be wider than the store's)."""
    if info["decompressed_bytes"] > limits.max_stream_bytes:
        raise InvalidJob(
            field,
            f"the stream decompresses to {info['decompressed_bytes']} bytes, "
            f"at most {limits.max_stream_bytes} (max_stream_bytes)",
        )
    files, infos = [], []
    for member in info["members"]:
        if len(member["data"]) > limits.max_file_bytes:  # the parser read it with the platform's caps
            raise InvalidJob(
                field,
                f"member {member['member']} has more than {limits.max_file_bytes} bytes (max_file_bytes)",
            )
        files.append(member["data"])
        infos.append({
            "filename": member.get("name", info["filename"]), "format": member.get("format", "ogxm"),
            "bytes": len(member["data"]), **{k: v for k, v in member.items() if k not in ("data", "name")},
            "source": m,
        })  # fmt: skip
    stream = {
        "source": m, "field": field, "filename": info["filename"], "bytes": len(data),
        "decompressed_bytes": info["decompressed_bytes"], "matches": len(infos),
        "skipped": info["skipped"], "truncated": info["truncated"],
    }  # fmt: skip
    return files, infos, stream


def plan_job(
    matches: Sequence[Mapping[str, Any]],
    level: str | None,
    priority: str | None,
    single: bool,
    limits: AnalysisJobSettings,
) -> tuple[str, str, list[bytes], list[dict[str, Any]], list[list[int]], list[dict[str, Any]]]:
    """A job's level and priority (their defaults), its files, what it keeps of each, its chunks
    (``[match, game]``, one per game) and its streams (an uploaded stream's members are matches of the
    job, in order: :func:`_expand`); :class:`InvalidJob` naming the field (a stream's own field for
    the caps its matches and games go beyond)."""
    if isinstance(matches, Mapping | str | bytes) or not isinstance(matches, Sequence) or not matches:
        raise InvalidJob("matches", "a non-empty list of match files is required")
    if len(matches) > limits.max_matches:
        raise InvalidJob("matches", f"at most {limits.max_matches} matches per job, got {len(matches)}")
    level = limits.default_level if level is None else level
    if level not in ANALYSIS_DEPTHS:
        raise InvalidJob("level", f"one of {', '.join(ANALYSIS_DEPTHS)}, got {level!r}")
    if ANALYSIS_DEPTHS.index(level) > ANALYSIS_DEPTHS.index(limits.max_level):
        allowed = ", ".join(ANALYSIS_DEPTHS[: ANALYSIS_DEPTHS.index(limits.max_level) + 1])
        raise InvalidJob("level", f"{level} is not allowed on this platform (allowed: {allowed})")
    if priority is not None and priority not in QUEUES:
        raise InvalidJob("priority", f"one of {', '.join(QUEUES)}, got {priority!r}")
    files: list[bytes] = []
    infos: list[dict[str, Any]] = []
    streams: list[dict[str, Any]] = []
    for m, entry in enumerate(matches):
        data, info = read_match(entry, entry_prefix(m, single), limits)
        if info.get("stream"):
            more, kept, stream = _expand(m, data, info, f"{entry_prefix(m, single)}file", limits)
            files += more
            infos += kept
            streams.append(stream)
        else:
            files.append(data)
            infos.append(info)
    field = streams[-1]["field"] if streams else "matches"  # where the matches came from
    if len(infos) > limits.max_matches:
        raise InvalidJob(
            field, f"at most {limits.max_matches} matches per job (max_matches), got {len(infos)}"
        )
    chunks = [[m, g] for m, info in enumerate(infos) for g in range(len(info["actions"]))]
    if len(chunks) > limits.max_games:
        raise InvalidJob(
            field, f"the job would analyse {len(chunks)} games, at most {limits.max_games} (max_games)"
        )
    if priority is None:
        priority = "interactive" if len(infos) == 1 else "batch"
    return level, priority, files, infos, chunks, streams


def learner_sides(learner: Mapping[str, Any], infos: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What a job keeps of the player its matches are recorded for: ``player``, ``game_id`` and each
    match's ``sides`` (which of its players the player is: ``side`` when given, else the match's player
    named ``player_name``, else the one with the player's ``name``; names compare without case) and
    ``filenames``.  :class:`InvalidJob` naming ``player_name`` when a match has no such player."""
    given = learner.get("player_name")
    wanted = str(given if given is not None else learner.get("name") or "").strip().casefold()
    sides = []
    for m, info in enumerate(infos):
        if learner.get("side") is not None:
            sides.append(int(learner["side"]))
            continue
        names = [str(n) for n in info["players"]]
        found = [i for i, n in enumerate(names) if n.strip().casefold() == wanted]
        if len(found) != 1:
            where = f"match {m}" if len(infos) > 1 else "the match"
            why = "is not" if not found else "names both players"
            raise InvalidJob(
                "player_name",
                f"{given or learner.get('name')!r} {why} a player of {where} "
                f"(its players: {', '.join(names)}); name which of them the player is",
            )
        sides.append(found[0])
    return {
        "player": str(learner["player"]),
        "game_id": learner.get("game_id"),
        "sides": sides,
        "filenames": {str(m): info.get("filename") for m, info in enumerate(infos)},
    }
