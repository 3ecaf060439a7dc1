"""``pulvezar match``: show a match file, convert it to another format, or analyse it.

``pulvezar match analyse FILE [--level 0ply|1ply|2ply|3ply|deep] [--json] [--sgf OUT]``
analyses every checker play and cube decision (:mod:`pulvezar.analysis.match`):
a table per player by default, the whole analysis as JSON with ``--json``, and
``--sgf OUT`` writes the annotated SGF that GNU Backgammon opens; a bar with the
time left is drawn on stderr when it is a terminal (``--quiet``: none).

``--ogxm-out OUT`` also writes the analysis as an OGXM analysis-shape file joined to the match (as
``convert`` writes it to ``.ogxm``) by its digest (:mod:`pulvezar.formats.ogxm_analysis`).

``pulvezar match verify FILE --key HEX [--key HEX ...] [--json]`` checks the signatures of an OGXM
file (analysis blocks and match signatures) against the publisher's Ed25519 public keys (hex or
base64): one line per signature (``valid``, ``other_key``, ``unsigned``, ``tampered`` or
``unverified``); status 0 when every one is valid, 1 otherwise.  ``show --key HEX`` prints the
same checks on stderr (with ``--json``, under ``"signatures"``).

``show`` of an OGXM analysis-shape file prints what it joins and holds.

``pulvezar match show FILE [--json] [--boards]`` prints the match as text (or as
JSON: players, length, cut games, and every game's decisions with the Position
ID and Match ID before each); ``pulvezar match convert IN OUT`` converts by file
extension (:mod:`pulvezar.formats.files`).
A file that cannot be read prints one error line and exits with status 2.

Streams of many matches (``.ogxms``, ``.ogxms.zst``): ``show`` lists the
matches (with the members skipped and where a truncated stream stopped), and
``show``/``analyse --match N`` take the N-th match (1-based); ``convert`` writes
one file per match when OUT holds ``{n}`` (``match-{n}.sgf``), and refuses
otherwise unless the stream holds a single match.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pulvezar.cli.common import add_prune_argument
from pulvezar.cli.common import run as _run
from pulvezar.cli.config import player_of, side_of
from pulvezar.cli.progress import progress_bar
from pulvezar.errors import PulvezarError
from pulvezar.formats.files import (
    FileError,
    extension,
    is_stream,
    read_match,
    read_stream,
    write_match,
    writer_for,
)
from pulvezar.formats.record import MatchRecord
from pulvezar.formats.text import write_text

__all__ = [
    "add_parser",
    "analysis_table",
    "cmd_match_analyse",
    "cmd_match_convert",
    "cmd_match_show",
    "cmd_match_verify",
    "read_match",
    "record_json",
    "write_match",
]

# the errors of reading and writing match files, as this module named them before
CliError = FileError


def record_json(record: MatchRecord) -> dict[str, Any]:
    """The match as JSON-ready data: every game's decisions with the IDs before each."""
    games: list[dict[str, Any]] = [
        {
            "number": g.number,
            "score": list(g.score),
            "crawford": g.crawford,
            "winner": g.winner,
            "points": g.points,
            "credited": g.credited(record.length),
            "cut_at": g.cut_at,
            "notes": list(g.notes),
            "decisions": [],
        }
        for g in record.games
    ]
    for d in record.replay():
        a = d.action
        item: dict[str, Any] = {"index": d.index, "player": a.player, "kind": a.kind}
        if a.kind == "play":
            item["dice"] = list(d.match_id.dice)
            item["notation"] = a.notation
            item["play"] = a.notation  # deprecated: the REST name is notation (docs/cli.md)
        elif a.kind in ("double", "beaver", "raccoon"):
            item["value"] = a.value
            item["cube"] = a.value  # deprecated: the REST name is value (docs/cli.md)
        elif a.kind == "resign":
            item["value"] = a.value
            item["level"] = a.value  # deprecated: the REST name is value (docs/cli.md)
        item["position_id"] = d.position.position_id
        item["match_id"] = d.match_id.encode()
        games[d.game]["decisions"].append(item)
    return {
        "players": list(record.players),
        "length": record.length,
        "tags": dict(record.tags),
        "cut_games": record.cut_games,
        "games": games,
    }


def _stream_match(path: Path, stream: Any, number: int | None) -> MatchRecord:
    """Match ``number`` (1-based) of a stream, or its only match."""
    matches = stream.matches
    if number is None:
        if len(matches) == 1:
            record: MatchRecord = matches[0].record
            return record
        raise CliError(f"{path}: a stream of {len(matches)} matches: choose one with --match N")
    if not 1 <= number <= len(matches):
        raise CliError(f"{path}: --match {number}: the stream has {len(matches)} matches")
    record = matches[number - 1].record
    return record


def _load(path: Path, number: int | None) -> MatchRecord:
    """The match of a file, or match ``number`` of a stream."""
    if is_stream(path):
        return _stream_match(path, read_stream(path), number)
    if number is not None:
        raise CliError(f"{path}: --match is for streams of matches (.ogxms, .ogxms.zst)")
    return read_match(path)


def stream_lines(stream: Any) -> str:
    """A stream's entries as text: one line per match, skipped member, and where it was cut."""
    lines = []
    n = 0
    for e in stream.entries:
        if e.kind == "match":
            n += 1
            r = e.record
            length = f"{r.length}-point match" if r.length else "money session"
            cut = f", {r.cut_games} cut" if r.cut_games else ""
            lines.append(
                f"{n:>4}. {r.players[0]} - {r.players[1]}, {length}, {len(r.games)} games{cut}"
                f" (offset {e.offset})"
            )
        elif e.kind == "skipped":
            lines.append(f"   -  skipped {e.length} bytes at offset {e.offset}: {e.reason}")
        else:
            lines.append(f"   -  truncated at offset {e.offset}: {e.length} trailing bytes")
    lines.append(f"{n} match(es), {len(stream.skipped)} skipped")
    return "\n".join(lines) + "\n"


def _signature_checks(path: Path, keys: list[str]) -> list[Any]:
    from pulvezar.formats.ogxm_analysis import parse_public_key, verify_ogxm_signatures

    trusted = [parse_public_key(k) for k in keys]
    try:
        data = path.read_bytes()
    except OSError as e:
        raise CliError(f"{path}: {e.strerror or e}") from None
    return verify_ogxm_signatures(data, trusted)


def _check_line(c: Any) -> str:
    where = "file" if c.scope == "file" else f"{c.scope} {c.index}"
    key = f" key {c.key}" if c.key else ""
    return f"{where}: {c.status.value}{key} ({c.reason})"


def cmd_match_verify(args: argparse.Namespace) -> int:
    status = [0]

    def body() -> None:
        checks = _signature_checks(Path(args.file), args.key)
        if args.json:
            print(json.dumps([c.to_json() for c in checks], ensure_ascii=False))
        else:
            print("\n".join(_check_line(c) for c in checks))
        status[0] = 0 if all(c.ok for c in checks) else 1

    rc = _run(body)
    return rc or status[0]


def _analysis_file(path: Path) -> Any:
    """The analysis-shape OGXM file at ``path``, or None when it is not one."""
    if extension(path) != ".ogxm":
        return None
    from pulvezar.formats.ogxm_analysis import is_ogxm_analysis, read_ogxm_analysis

    try:
        data = path.read_bytes()
    except OSError:
        return None  # the reader says why
    return read_ogxm_analysis(data) if is_ogxm_analysis(data) else None


def _show_analysis_file(shape: Any, checks: list[Any] | None, as_json: bool) -> None:
    data = shape.to_json()
    if as_json:
        if checks is not None:
            data["signatures"] = [c.to_json() for c in checks]
        print(json.dumps(data, ensure_ascii=False))
        return
    print(
        f"OGXM analysis of match {data['match_digest']}\n"
        f"by {data['model_id'] or '-'}, {data['currency'] or 'no currency'}; {data['decisions']} plies: "
        f"{data['checker']} checker, {data['cube']} cube, {data['luck']} luck"
        f"{', signed' if data['signed'] else ''}"
    )


def cmd_match_show(args: argparse.Namespace) -> int:
    def body() -> None:
        path = Path(args.file)
        if args.key and is_stream(path):
            raise CliError(f"{path}: --key checks the signatures of a single .ogxm file, not a stream")
        checks = _signature_checks(path, args.key) if args.key else None
        if checks is not None and not args.json:
            for c in checks:
                print(f"signature: {_check_line(c)}", file=sys.stderr)
        shape = _analysis_file(path)
        if shape is not None:
            _show_analysis_file(shape, checks, args.json)
            return
        if checks is not None and args.json:
            data = record_json(_load(path, args.match))
            data["signatures"] = [c.to_json() for c in checks]
            print(json.dumps(data, ensure_ascii=False))
            return
        if is_stream(path) and args.match is None:
            stream = read_stream(path)
            print(
                json.dumps(stream.to_json(), ensure_ascii=False) if args.json else stream_lines(stream),
                end="",
            )
            if args.json:
                print()
            return
        record = _load(path, args.match)
        if args.json:
            print(json.dumps(record_json(record), ensure_ascii=False))
        else:
            print(write_text(record, boards=args.boards), end="")

    return _run(body)


def cmd_match_convert(args: argparse.Namespace) -> int:
    def body() -> None:
        src, dst = Path(args.input), Path(args.output)
        writer_for(dst)  # fail before reading when the output format is unknown
        if is_stream(src):
            _convert_stream(src, args.output)
            return
        record = read_match(src)
        write_match(record, dst)
        _warn_cut(record, "")

    return _run(body)


def _warn_cut(record: MatchRecord, where: str) -> None:
    if record.cut_games:
        warning = f"{where}{record.cut_games} game(s) cut where the record breaks the rules"
        print(f"pulvezar: warning: {warning}", file=sys.stderr)


def _convert_stream(src: Path, output: str) -> None:
    """One file per match of a stream: ``{n}`` in ``output`` is the match's number (1-based)."""
    stream = read_stream(src)
    matches = stream.matches
    if "{n}" not in output and len(matches) != 1:
        raise CliError(
            f"{src}: a stream of {len(matches)} matches: name the outputs with {{n}} "
            f"(e.g. match-{{n}}{Path(output).suffix}), one file per match"
        )
    width = len(str(len(matches)))
    for n, entry in enumerate(matches, start=1):
        write_match(entry.record, Path(output.replace("{n}", f"{n:0{width}d}")))
        _warn_cut(entry.record, f"match {n}: ")
    for e in stream.skipped:
        print(
            f"pulvezar: warning: skipped {e.length} bytes at offset {e.offset}: {e.reason}", file=sys.stderr
        )
    if stream.truncated is not None:
        t = stream.truncated
        print(
            f"pulvezar: warning: the stream is truncated at offset {t.offset} ({t.length} bytes)",
            file=sys.stderr,
        )


def _fmt(x: float | None, spec: str = ".1f") -> str:
    return "-" if x is None else format(x, spec)


def analysis_table(data: dict[str, Any]) -> str:
    """The human summary of a match analysis (its JSON form): one column per player."""
    players = data["players"]
    rows: list[tuple[str, str, str]] = []

    def row(label: str, get: Callable[[dict[str, Any]], str]) -> None:
        rows.append((label, get(players[0]), get(players[1])))

    you = (data.get("you") or {}).get("side")
    row("", lambda p: str(p["name"]) + (" (you)" if players.index(p) == you else ""))
    row("PR", lambda p: _fmt(p["pr"]))
    row("grade", lambda p: str(p["grade"] or "-"))
    row("error rate (mEMG)", lambda p: _fmt(p["error_rate"]))
    row("decisions counted", lambda p: str(p["decisions"]))
    row("errors / blunders", lambda p: f"{p['errors']} / {p['blunders']}")
    row("checker PR", lambda p: _fmt(p["checker"]["pr"]))
    row("checker errors / blunders", lambda p: f"{p['checker']['errors']} / {p['checker']['blunders']}")
    row("cube PR", lambda p: _fmt(p["cube"]["pr"]))
    row("cube errors / blunders", lambda p: f"{p['cube']['errors']} / {p['cube']['blunders']}")
    row(
        "missed / wrong doubles",
        lambda p: f"{p['cube']['missed_doubles']} / {p['cube']['wrong_doubles']}",
    )
    row("wrong takes / passes", lambda p: f"{p['cube']['wrong_takes']} / {p['cube']['wrong_passes']}")
    row("luck (EMG), net", lambda p: f"{p['luck']['total']:+.2f}, {p['luck']['net']:+.2f}")
    row("points won - lost", lambda p: f"{p['result_points']:+d}")
    row("luck-adjusted (points)", lambda p: f"{p['luck_adjusted']:+.2f}")

    def worst(p: dict[str, Any]) -> str:
        m = p["biggest_mistake"]
        if m is None:
            return "-"
        return f"g{m['game'] + 1} m{m['move']} {m['played'] or '-'} ({m['loss']:.3f})"

    row("biggest mistake", worst)
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    s = data["settings"]
    head = (
        f"analysis: {s['level']} (checker {s['ply']}-ply, cube {s['cube_ply']}-ply, luck {s['luck_ply']}-ply)"
    )
    lines = [head] + [f"{a:<{w0}}  {b:>{w1}}  {c}" for a, b, c in rows]
    return "\n".join(lines) + "\n"


def _your_side(record: MatchRecord, args: argparse.Namespace) -> int | None:
    """Which of the match's players is the CLI's player (``--player``, else the profile's; see
    :mod:`pulvezar.cli.config`): an explicit name that is not one of them is an error, the profile's a
    note."""
    name, explicit = player_of(args.player)
    if name is None:
        return None
    side = side_of(record.players, name)
    if side is None:
        why = f"{name!r} is not one player of {args.file} (its players: {', '.join(record.players)})"
        if explicit:
            raise PulvezarError(f"--player: {why}; name which of them you are", field="player")
        print(f"pulvezar: note: the profile's player {why}; analysed for neither", file=sys.stderr)
    return side


def cmd_match_analyse(args: argparse.Namespace) -> int:
    def body() -> None:
        from pulvezar.analysis.match import AnalysisSettings, analyse_match, annotated_sgf

        settings = AnalysisSettings.from_level(args.level, prune=not args.no_prune)
        record = _load(Path(args.file), args.match)
        if not record.games:
            raise CliError(f"{args.file}: the file holds no games")
        side = _your_side(record, args)

        with progress_bar("analysis", "games", quiet=args.quiet) as bar:

            def progress(done: int, total: int) -> None:
                bar(done, total)
                if not args.json and args.progress:
                    print(f"analysed {done}/{total} games", file=sys.stderr)

            analysis = analyse_match(record, settings, progress=progress)
        data = analysis.to_json()
        if side is not None:
            data["you"] = {"name": record.players[side], "side": side}
        if args.sgf:
            try:
                Path(args.sgf).write_text(annotated_sgf(record, analysis), encoding="utf-8")
            except OSError as e:
                raise CliError(f"{args.sgf}: {e.strerror or e}") from None
        if args.ogxm_out:
            from pulvezar.formats.ogxm_analysis import write_ogxm_analysis

            try:
                Path(args.ogxm_out).write_bytes(write_ogxm_analysis(record, analysis))
            except OSError as e:
                raise CliError(f"{args.ogxm_out}: {e.strerror or e}") from None
        if args.json:
            print(json.dumps(data, ensure_ascii=False))
        else:
            print(analysis_table(data), end="")

    return _run(body)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``match show``, ``convert``, ``analyse`` and ``verify`` to ``subparsers``."""
    match: argparse.ArgumentParser = subparsers.add_parser(
        "match", help="show, convert, analyse or verify match files"
    )
    sub = match.add_subparsers(dest="match_command", required=True)
    show = sub.add_parser("show", help="print a match file as text or JSON")
    show.add_argument(
        "file", help="a .mat, .txt, .sgf, .xg, .gmd or .ogxm match file, or an .ogxms(.zst) stream"
    )
    show.add_argument("--match", type=int, metavar="N", help="a stream's N-th match (default: list them)")
    show.add_argument("--json", action="store_true", help="every decision with its Position ID and Match ID")
    show.add_argument("--boards", action="store_true", help="text: a board at the start of each game")
    show.add_argument(
        "--key",
        action="append",
        metavar="HEX",
        help="an OGXM publisher's Ed25519 public key: check signatures",
    )
    show.set_defaults(func=cmd_match_show)
    convert = sub.add_parser("convert", help="convert a match file (formats by extension)")
    convert.add_argument("input", help="a match file, or an .ogxms(.zst) stream")
    convert.add_argument(
        "output", help=".mat, .txt (readable text), .sgf or .ogxm; for a stream, {n} numbers the matches"
    )
    convert.set_defaults(func=cmd_match_convert)
    analyse = sub.add_parser("analyse", help="analyse every decision of a match: PR, errors, luck")
    analyse.add_argument("file", help="a .mat, .txt, .sgf, .xg, .gmd or .ogxm match file, or a stream")
    analyse.add_argument("--match", type=int, metavar="N", help="a stream's N-th match (1-based)")
    analyse.add_argument(
        "--level",
        choices=("0ply", "1ply", "2ply", "3ply", "deep"),
        default="2ply",
        help="search depth (default 2ply; deep adds a rollout for every error)",
    )
    analyse.add_argument("--json", action="store_true", help="the whole analysis as JSON")
    add_prune_argument(analyse)
    analyse.add_argument(
        "--sgf", metavar="OUT", help="also write the annotated SGF (GNU Backgammon opens it)"
    )
    analyse.add_argument(
        "--ogxm-out", metavar="OUT", help="also write the analysis as an OGXM analysis-shape file"
    )
    analyse.add_argument("--progress", action="store_true", help="a line on stderr for each analysed game")
    analyse.add_argument(
        "--player",
        metavar="NAME",
        help="which of the match's players you are (names compare without case); marked in the table, "
        '"you" in the JSON (default: player in ~/.config/pulvezar/config.toml, see docs/cli.md)',
    )
    analyse.add_argument(
        "--quiet", action="store_true", help="no progress bar (drawn when stderr is a terminal)"
    )
    analyse.set_defaults(func=cmd_match_analyse)
    verify = sub.add_parser("verify", help="check an OGXM file's signatures against publisher keys")
    verify.add_argument("file", help="an .ogxm match or analysis-shape file")
    verify.add_argument(
        "--key",
        action="append",
        default=[],
        metavar="HEX",
        help="a publisher's Ed25519 public key (repeatable)",
    )
    verify.add_argument("--json", action="store_true", help="the checks as JSON")
    verify.set_defaults(func=cmd_match_verify)
    return match
