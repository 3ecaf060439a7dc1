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

from pulvezar.cli.common import add_lang_argument, add_prune_argument, fixed, lang_of
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
from pulvezar.i18n import t

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


def _stream_match(path: Path, stream: Any, number: int | None, lang: str = "en") -> MatchRecord:
    """Match ``number`` (1-based) of a stream, or its only match."""
    matches = stream.matches
    if number is None:
        if len(matches) == 1:
            record: MatchRecord = matches[0].record
            return record
        raise CliError(t("cli.match.choose_one", lang, path=path, n=len(matches)))
    if not 1 <= number <= len(matches):
        raise CliError(t("cli.match.no_such_match", lang, path=path, number=number, n=len(matches)))
    record = matches[number - 1].record
    return record


def _load(path: Path, number: int | None, lang: str = "en") -> MatchRecord:
    """The match of a file, or match ``number`` of a stream."""
    if is_stream(path):
        return _stream_match(path, read_stream(path), number, lang)
    if number is not None:
        raise CliError(t("cli.match.not_a_stream", lang, path=path))
    return read_match(path)


def stream_lines(stream: Any, lang: str = "en") -> str:
    """A stream's entries as text: one line per match, skipped member, and where it was cut."""
    lines = []
    n = 0
    for e in stream.entries:
        if e.kind == "match":
            n += 1
            r = e.record
            length = t("cli.match.length", lang, n=r.length) if r.length else t("cli.match.money", lang)
            cut = t("cli.match.cut", lang, n=r.cut_games) if r.cut_games else ""
            games = t("cli.match.games", lang, n=len(r.games))
            line = t("cli.match.stream_match", lang, a=r.players[0], b=r.players[1], length=length,
                     games=games, cut=cut, offset=e.offset)  # fmt: skip
            lines.append(f"{n:>4}. {line}")
        elif e.kind == "skipped":
            lines.append(
                f"   -  {t('cli.match.skipped', lang, n=e.length, offset=e.offset, reason=e.reason)}"
            )
        else:
            lines.append(f"   -  {t('cli.match.truncated', lang, offset=e.offset, n=e.length)}")
    lines.append(t("cli.match.stream_total", lang, n=n, skipped=len(stream.skipped)))
    return "\n".join(lines) + "\n"


def _signature_checks(path: Path, keys: list[str]) -> list[Any]:
    from pulvezar.formats.ogxm_analysis import parse_public_key, verify_ogxm_signatures

    trusted = [parse_public_key(k) for k in keys]
    try:
        data = path.read_bytes()
    except OSError as e:
        raise CliError(f"{path}: {e.strerror or e}") from None
    return verify_ogxm_signatures(data, trusted)


def _check_line(c: Any, lang: str = "en") -> str:
    """One signature check: where, its status (a word of the OGXM format), the key and the reason."""
    where = c.scope if c.scope == "file" else f"{c.scope} {c.index}"  # the format's scope names
    key = t("cli.match.key", lang, fingerprint=c.key) if c.key else ""
    return f"{where}: {c.status.value}{key} ({c.reason})"


def cmd_match_verify(args: argparse.Namespace) -> int:
    status = [0]
    lang = lang_of(args)

    def body() -> None:
        checks = _signature_checks(Path(args.file), args.key)
        if args.json:
            print(json.dumps([c.to_json() for c in checks], ensure_ascii=False))
        else:
            print("\n".join(_check_line(c, lang) for c in checks))
        status[0] = 0 if all(c.ok for c in checks) else 1

    rc = _run(body, lang)
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


def _show_analysis_file(shape: Any, checks: list[Any] | None, as_json: bool, lang: str = "en") -> None:
    data = shape.to_json()
    if as_json:
        if checks is not None:
            data["signatures"] = [c.to_json() for c in checks]
        print(json.dumps(data, ensure_ascii=False))
        return
    currency = data["currency"] or t("cli.match.no_currency", lang)
    signed = t("cli.match.signed", lang) if data["signed"] else ""
    print(t("cli.match.analysis_file", lang, digest=data["match_digest"], model=data["model_id"] or "-",
            currency=currency, n=data["decisions"], checker=data["checker"], cube=data["cube"],
            luck=data["luck"], signed=signed))  # fmt: skip


def cmd_match_show(args: argparse.Namespace) -> int:
    lang = lang_of(args)

    def body() -> None:
        path = Path(args.file)
        if args.key and is_stream(path):
            raise CliError(t("cli.match.key_on_stream", lang, path=path))
        checks = _signature_checks(path, args.key) if args.key else None
        if checks is not None and not args.json:
            for c in checks:
                print(t("cli.match.signature", lang, check=_check_line(c, lang)), file=sys.stderr)
        shape = _analysis_file(path)
        if shape is not None:
            _show_analysis_file(shape, checks, args.json, lang)
            return
        if checks is not None and args.json:
            data = record_json(_load(path, args.match, lang))
            data["signatures"] = [c.to_json() for c in checks]
            print(json.dumps(data, ensure_ascii=False))
            return
        if is_stream(path) and args.match is None:
            stream = read_stream(path)
            print(
                json.dumps(stream.to_json(), ensure_ascii=False) if args.json else stream_lines(stream, lang),
                end="",
            )
            if args.json:
                print()
            return
        record = _load(path, args.match, lang)
        if args.json:
            print(json.dumps(record_json(record), ensure_ascii=False))
        else:
            print(write_text(record, boards=args.boards), end="")

    return _run(body, lang)


def cmd_match_convert(args: argparse.Namespace) -> int:
    lang = lang_of(args)

    def body() -> None:
        src, dst = Path(args.input), Path(args.output)
        writer_for(dst)  # fail before reading when the output format is unknown
        if is_stream(src):
            _convert_stream(src, args.output, lang)
            return
        record = read_match(src)
        write_match(record, dst)
        _warn_cut(record, "", lang)

    return _run(body, lang)


def _warn(warning: str, lang: str) -> None:
    print(t("cli.common.warning", lang, warning=warning), file=sys.stderr)


def _warn_cut(record: MatchRecord, where: str, lang: str = "en") -> None:
    if record.cut_games:
        _warn(where + t("cli.match.games_cut", lang, n=record.cut_games), lang)


def _convert_stream(src: Path, output: str, lang: str = "en") -> None:
    """One file per match of a stream: ``{n}`` in ``output`` is the match's number (1-based)."""
    stream = read_stream(src)
    matches = stream.matches
    if "{n}" not in output and len(matches) != 1:
        example = f"match-{{n}}{Path(output).suffix}"
        raise CliError(
            t("cli.match.name_outputs", lang, path=src, n=len(matches), pattern="{n}", example=example)
        )
    width = len(str(len(matches)))
    for n, entry in enumerate(matches, start=1):
        write_match(entry.record, Path(output.replace("{n}", f"{n:0{width}d}")))
        _warn_cut(entry.record, t("cli.match.match_n", lang, n=n), lang)
    for e in stream.skipped:
        _warn(t("cli.match.skipped", lang, n=e.length, offset=e.offset, reason=e.reason), lang)
    if stream.truncated is not None:
        cut = stream.truncated
        _warn(t("cli.match.stream_truncated", lang, offset=cut.offset, n=cut.length), lang)


def _fmt(x: float | None, spec: str = ".1f", lang: str = "en") -> str:
    return fixed(x, lang, spec)


#: the rows of the analysis table, by their catalog keys (``cli.match.table.<key>``)
TABLE_ROWS = (
    "pr", "grade", "error_rate", "decisions", "errors", "checker_pr", "checker_errors", "cube_pr",
    "cube_errors", "doubles", "takes", "luck", "points", "luck_adjusted", "biggest_mistake",
)  # fmt: skip


def analysis_table(data: dict[str, Any], lang: str = "en") -> str:
    """The human summary of a match analysis (its JSON form): one column per player."""
    players = data["players"]
    you = (data.get("you") or {}).get("side")

    def f(x: float | None, spec: str = ".1f") -> str:
        return _fmt(x, spec, lang)

    def worst(p: dict[str, Any]) -> str:
        m = p["biggest_mistake"]
        if m is None:
            return "-"
        return f"g{m['game'] + 1} m{m['move']} {m['played'] or '-'} ({f(m['loss'], '.3f')})"

    cells: dict[str, Callable[[dict[str, Any]], str]] = {
        "pr": lambda p: f(p["pr"]),
        "grade": lambda p: str(p["grade"] or "-"),
        "error_rate": lambda p: f(p["error_rate"]),
        "decisions": lambda p: str(p["decisions"]),
        "errors": lambda p: f"{p['errors']} / {p['blunders']}",
        "checker_pr": lambda p: f(p["checker"]["pr"]),
        "checker_errors": lambda p: f"{p['checker']['errors']} / {p['checker']['blunders']}",
        "cube_pr": lambda p: f(p["cube"]["pr"]),
        "cube_errors": lambda p: f"{p['cube']['errors']} / {p['cube']['blunders']}",
        "doubles": lambda p: f"{p['cube']['missed_doubles']} / {p['cube']['wrong_doubles']}",
        "takes": lambda p: f"{p['cube']['wrong_takes']} / {p['cube']['wrong_passes']}",
        "luck": lambda p: f"{f(p['luck']['total'], '+.2f')}, {f(p['luck']['net'], '+.2f')}",
        "points": lambda p: f"{p['result_points']:+d}",
        "luck_adjusted": lambda p: f(p["luck_adjusted"], "+.2f"),
        "biggest_mistake": worst,
    }

    def name(p: dict[str, Any]) -> str:
        return str(p["name"]) + (t("cli.match.you", lang) if players.index(p) == you else "")

    rows = [("", name(players[0]), name(players[1]))]
    rows += [
        (t(f"cli.match.table.{k}", lang), cells[k](players[0]), cells[k](players[1])) for k in TABLE_ROWS
    ]
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    s = data["settings"]
    head = t("cli.match.table_head", lang, level=s["level"], ply=s["ply"], cube_ply=s["cube_ply"],
             luck_ply=s["luck_ply"])  # fmt: skip
    lines = [head] + [f"{a:<{w0}}  {b:>{w1}}  {c}" for a, b, c in rows]
    return "\n".join(lines) + "\n"


def _your_side(record: MatchRecord, args: argparse.Namespace, lang: str = "en") -> int | None:
    """Which of the match's players is the CLI's player (``--player``, else the profile's; see
    :mod:`pulvezar.cli.config`): an explicit name that is not one of them is an error, the profile's a
    note."""
    name, explicit = player_of(args.player, lang)
    if name is None:
        return None
    side = side_of(record.players, name)
    if side is None:
        why = t(
            "cli.match.not_a_player", lang, name=repr(name), path=args.file, players=", ".join(record.players)
        )
        if explicit:
            raise PulvezarError(t("cli.match.player_error", lang, why=why), field="player")
        print(t("cli.match.player_note", lang, why=why), file=sys.stderr)
    return side


def cmd_match_analyse(args: argparse.Namespace) -> int:
    lang = lang_of(args)

    def body() -> None:
        from pulvezar.analysis.match import AnalysisSettings, analyse_match, annotated_sgf

        # the move explanations (--sgf's comments) in the language; --json is the same in every one
        explain_lang = "en" if args.json else lang
        settings = AnalysisSettings.from_level(args.level, prune=not args.no_prune, lang=explain_lang)
        record = _load(Path(args.file), args.match, lang)
        if not record.games:
            raise CliError(t("cli.match.no_games", lang, path=args.file))
        side = _your_side(record, args, lang)
        bar_words = t("cli.match.bar", lang), t("cli.match.bar_unit", lang)

        with progress_bar(*bar_words, quiet=args.quiet, lang=lang) as bar:

            def progress(done: int, total: int) -> None:
                bar(done, total)
                if not args.json and args.progress:
                    print(t("cli.match.analysed", lang, done=done, n=total), file=sys.stderr)

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
            print(analysis_table(data, lang), end="")

    return _run(body, lang)


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
    add_lang_argument(show)
    show.set_defaults(func=cmd_match_show)
    convert = sub.add_parser("convert", help="convert a match file (formats by extension)")
    convert.add_argument("input", help="a match file, or an .ogxms(.zst) stream")
    convert.add_argument(
        "output", help=".mat, .txt (readable text), .sgf or .ogxm; for a stream, {n} numbers the matches"
    )
    add_lang_argument(convert)
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
    add_lang_argument(analyse)
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
    add_lang_argument(verify)
    verify.set_defaults(func=cmd_match_verify)
    return match
