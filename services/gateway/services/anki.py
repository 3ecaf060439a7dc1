"""A player's cards as an Anki deck (``GET /v1/players/{id}/cards.apkg``): the stored cards, each with its
answer, written by :func:`pulvezar.play.anki.apkg` with the gateway's board picture
(:mod:`services.gateway.svg`: SVG, or PNG through resvg).

A deck holds at most :data:`MAX_DECK` cards (:data:`MAX_PNG_DECK` with PNG pictures, whose drawing
takes 40 ms a board or more; each board is drawn once an export); a player with more gets a 413 problem.
The deck's and the notes' ids come from the player's and the cards' ids, so a new export imported into
Anki updates the notes it imported before.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Literal

from pulvezar import Position
from pulvezar.errors import PulvezarError
from pulvezar.rules.matchid import MatchId
from services.gateway.durable import store_call
from services.gateway.problems import ProblemError
from services.gateway.services.cards import Desk, not_found

if TYPE_CHECKING:
    from pulvezar.play.anki import Picture
    from services.store.players import PlayerRecords

#: the most cards of one deck (SVG pictures: about 9 kB a card before compression)
MAX_DECK = 500
#: the most cards of one deck with PNG pictures (about 40 kB and 40 to 140 ms of resvg a board)
MAX_PNG_DECK = 50
MEDIA_TYPE = "application/apkg"

ImageKind = Literal["svg", "png"]


def picture(puzzle: Mapping[str, Any], kind: ImageKind = "svg") -> Picture:
    """The board of a card's decision as the gateway draws it: dice or cube, the score of a match, the IDs."""
    from pulvezar.play.anki import Picture
    from services.gateway.svg import board_svg, png

    pid = str(puzzle["position_id"])
    mid = puzzle.get("match_id")
    owner, score = None, None
    if mid:
        try:
            m = MatchId.parse(str(mid))
        except PulvezarError:
            m = None
        if m is not None:
            me = m.dice_owner
            owner = None if m.cube_owner is None else "player" if m.cube_owner == me else "opponent"
            if m.match_length:
                score = f"{m.score[me]}-{m.score[1 - me]} in a {m.match_length}-point match"
    dice = puzzle.get("dice")
    svg = board_svg(
        Position.from_position_id(pid),
        ids=[("Position ID", pid), *([("Match ID", str(mid))] if mid else [])],
        dice=(int(dice[0]), int(dice[1])) if dice else None,
        cube_value=int(puzzle.get("cube_value") or 1),
        cube_owner=owner,
        title="Backgammon card",
        score=score,
    )
    return Picture(png(svg), "png") if kind == "png" else Picture(svg.encode("utf-8"), "svg")


def too_many(count: int, cap: int, kind: ImageKind) -> ProblemError:
    more = " (SVG pictures allow more)" if kind == "png" else ""
    return ProblemError(
        413,
        f"the player has {count} cards or more; a deck with {kind} pictures holds at most {cap}{more}",
        kind="too-large",
        errors=[("image" if kind == "png" else "player_id", f"at most {cap} cards a deck")],
    )


async def export(d: Desk, players: PlayerRecords, player_id: str, kind: ImageKind) -> tuple[bytes, str]:
    """The ``.apkg`` of the caller's player's cards and its file name (404: no such player of the caller;
    413: more cards than a deck holds)."""
    from pulvezar.play.anki import apkg

    cap = MAX_PNG_DECK if kind == "png" else MAX_DECK
    found = await store_call(d.cards.all, d.who.owner, player_id, cap + 1)
    player = await store_call(players.get, d.who.owner, player_id)
    if found is None or player is None:
        raise not_found("player", player_id)
    if len(found) > cap:
        raise too_many(len(found), cap, kind)
    cards = [asdict(c) for c in found]
    drawn: dict[str, Picture] = {}

    def draw(p: Mapping[str, Any]) -> Picture:
        key = json.dumps([p.get(k) for k in ("position_id", "match_id", "dice", "cube_value")])
        if key not in drawn:
            drawn[key] = picture(p, kind)
        return drawn[key]

    data = await asyncio.to_thread(apkg, cards, player.id, draw, name=player.name, lang=d.lang)
    return data, f"pulvezar-{player.name}-cards.apkg"
