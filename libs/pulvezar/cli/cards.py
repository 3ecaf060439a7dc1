"""``pulvezar cards export OUT.apkg``: flash cards as an Anki deck (:mod:`pulvezar.play.anki`; genanki, the
``interop`` extra).

The cards come from ``--cards FILE`` (JSON: a list of cards, or an object with ``cards`` and optionally
``player_id``; each card with its ``id`` and its ``puzzle`` or ``decision`` with the answer, as the
platform stores them) and/or from ``--match FILE --player NAME``: the named player's errors (or, with
``--blunders``, blunders only) of a match file analysed now at ``--level`` (as ``pulvezar match analyse``
does), or of an analysis JSON that ``pulvezar match analyse --json`` wrote.  A match's card ids come from
the match's positions, so exporting the same match again (at any level, from the file or its analysis)
gives the same notes, which an Anki import updates; the deck's id comes from ``--player-id``, else the
JSON's ``player_id``, else the player's name.  The boards are text diagrams drawn as SVG.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

from pulvezar.cli.common import add_lang_argument, add_prune_argument, lang_of
from pulvezar.cli.common import run as _run
from pulvezar.errors import PulvezarError
from pulvezar.i18n import t

__all__ = ["add_parser", "match_cards"]


def _read_json(path: str, lang: str = "en") -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise PulvezarError(f"{path}: {e.strerror or e}", field="cards") from None
    except ValueError as e:
        raise PulvezarError(t("cli.cards.not_json", lang, path=path, error=e), field="cards") from None


def file_cards(path: str, lang: str = "en") -> tuple[list[dict[str, Any]], str | None]:
    """The cards of a JSON file and the player id it names (None: none)."""
    data = _read_json(path, lang)
    cards = data.get("cards") if isinstance(data, dict) else data
    if not isinstance(cards, list) or not all(isinstance(c, dict) for c in cards):
        raise PulvezarError(t("cli.cards.not_cards", lang, path=path), field="cards")
    player = data.get("player_id") if isinstance(data, dict) else None
    return cards, str(player) if player else None


def _analysis(path: str, level: str, lang: str, prune: bool) -> Any:
    """The match analysis of a match file (analysed now) or of an analysis JSON."""
    from pulvezar.analysis.match import AnalysisSettings, MatchAnalysis, analyse_match
    from pulvezar.formats.files import read_match

    if path.lower().endswith(".json"):
        return MatchAnalysis.from_json(_read_json(path, lang))
    record = read_match(Path(path))
    if not record.games:
        raise PulvezarError(t("cli.match.no_games", lang, path=path), field="match")
    return analyse_match(record, AnalysisSettings.from_level(level, lang=lang, prune=prune))


def match_ref(analysis: Any) -> str:
    """``match:<hash>``: the match by its players and the positions of its decisions (not the level)."""
    h = hashlib.sha256("\x1f".join(analysis.players).encode())
    for d in analysis.decisions:
        h.update(f"\x1e{d.game}:{d.index}:{d.kind}:{d.position_id}:{d.match_id}".encode())
    return f"match:{h.hexdigest()[:16]}"


def match_cards(analysis: Any, player: str, blunders: bool = False, lang: str = "en") -> list[dict[str, Any]]:
    """The cards of ``player``'s errors (``blunders``: blunders only) in a match analysis, each with its
    ``id`` and ``source`` (:func:`~pulvezar.play.progress.card_source`), its puzzle and the analysis's
    reason (:func:`~pulvezar.play.progress.decision_card`: its sentence in ``lang`` and the others known)."""
    from pulvezar.analysis.decisions import BLUNDER, ERROR
    from pulvezar.play.progress import card_source, decision_card

    names = [n.strip().lower() for n in analysis.players]
    if player.strip().lower() not in names:
        known = ", ".join(repr(n) for n in analysis.players)
        raise PulvezarError(t("cli.cards.no_player", lang, name=repr(player), players=known), field="player")
    side = names.index(player.strip().lower())
    ref, least = match_ref(analysis), BLUNDER if blunders else ERROR
    out = []
    for g in analysis.games:
        for d in g.decisions:
            if d.player != side or not d.counts or d.loss < least:
                continue
            puzzle = decision_card(d, g.variant, lang)
            if puzzle is None:
                continue
            source = card_source(ref, d)
            out.append({"id": source, "source": source, "puzzle": puzzle})
    return out


def cmd_cards_export(args: argparse.Namespace) -> int:
    lang = lang_of(args)

    def body() -> None:
        from pulvezar.play.anki import apkg, text_board

        if not args.cards and not args.match:
            raise PulvezarError(t("cli.cards.nothing", lang), field="cards")
        if args.match and not args.player:
            raise PulvezarError(t("cli.cards.no_player_given", lang), field="player")
        cards: list[dict[str, Any]] = []
        owner = args.player_id
        for path in args.cards or ():
            found, named = file_cards(path, lang)
            cards += found
            owner = owner or named
        for path in args.match or ():
            analysis = _analysis(path, args.level, lang, not args.no_prune)
            cards += match_cards(analysis, args.player, args.blunders, lang)
        owner = owner or (args.player or "").strip().lower() or "pulvezar"
        data = apkg(cards, owner, text_board, name=args.deck or args.player or owner, lang=lang)
        try:
            Path(args.output).write_bytes(data)
        except OSError as e:
            raise PulvezarError(f"{args.output}: {e.strerror or e}", field="output") from None
        print(t("cli.cards.written", lang, n=len(cards), path=args.output))

    return _run(body, lang)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``cards export`` to ``subparsers`` (from ``add_subparsers``)."""
    cards: argparse.ArgumentParser = subparsers.add_parser(
        "cards", help="flash cards: export as an Anki deck"
    )
    sub = cards.add_subparsers(dest="cards_command", required=True)
    export = sub.add_parser(
        "export", help="write an Anki deck (.apkg) of cards (a JSON file) and/or of a player's match errors"
    )
    export.add_argument("output", help="the .apkg file to write")
    export.add_argument(
        "--cards", action="append", metavar="FILE", help="cards as JSON (a list, or {'cards': [...]})"
    )
    export.add_argument(
        "--match", action="append", metavar="FILE", help="a match file, or its analysis (.json)"
    )
    export.add_argument("--player", help="with --match: the player (as the match names it) whose errors")
    export.add_argument("--player-id", help="the deck's owner id (default: the JSON's, else the player)")
    export.add_argument(
        "--blunders", action="store_true", help="with --match: blunders only (default errors)"
    )
    export.add_argument(
        "--level",
        choices=("0ply", "1ply", "2ply", "3ply", "deep"),
        default="2ply",
        help="with a match file: the analysis's depth (default 2ply)",
    )
    add_prune_argument(export)
    add_lang_argument(export)
    export.add_argument("--deck", help="the deck's name (default: the player)")
    export.set_defaults(func=cmd_cards_export)
    return cards
