"""A player's cards as an Anki deck: ``GET /v1/players/{id}/cards.apkg``
(:mod:`services.gateway.services.anki`).

Each card is a note: the board and the dice (or the cube question) in front; the best play, the player's
play and its equity loss, the candidates and the reason behind.  A new export imported into Anki updates
the notes of the last one (ids from the player and the cards).  Needs the durable store.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response

from services.gateway.language import language
from services.gateway.problems import Problem
from services.gateway.routers.params import Who, short_id
from services.gateway.services import anki, cards
from services.gateway.services.deps import dependencies
from services.gateway.uploads import content_disposition

router = APIRouter(prefix="/v1/players", tags=["cards"])
PlayerId = Annotated[str, short_id()]


def desk(request: Request, who: Who) -> cards.Desk:
    """A player's cards, as ``GET .../cards`` reads them (a call without the durable store: 501)."""
    deps = dependencies(request)
    return cards.Desk(deps.cards, who, language(request), deps.games)


Desk = Annotated[cards.Desk, Depends(desk)]

_DECK = (
    "the Anki package (.apkg: a zip of the SQLite collection and the board pictures); import it in Anki "
    "(File > Import): a later export updates the notes"
)


@router.get(
    "/{player_id}/cards.apkg",
    response_class=Response,
    summary="A player's cards as an Anki deck (.apkg)",
    description=(
        f"Every card of the player, at most {anki.MAX_DECK} ({anki.MAX_PNG_DECK} with PNG pictures); "
        "the words in the request's language (Accept-Language: en, de, tr, fr, es, pt, it, el, ru)."
    ),
    responses={
        200: {
            "content": {anki.MEDIA_TYPE: {"schema": {"type": "string", "format": "binary"}}},
            "description": _DECK,
        },
        404: {"model": Problem, "description": "no such player of this key"},
        413: {"model": Problem, "description": "more cards than a deck holds"},
    },
)
async def anki_deck(
    player_id: PlayerId,
    d: Desk,
    request: Request,
    image: Annotated[
        anki.ImageKind, Query(description="the board pictures: svg (default) or png", examples=["png"])
    ] = "svg",
) -> Response:
    data, name = await anki.export(d, dependencies(request).players, player_id, image)
    return Response(
        data, media_type=anki.MEDIA_TYPE, headers={"Content-Disposition": content_disposition(name)}
    )
