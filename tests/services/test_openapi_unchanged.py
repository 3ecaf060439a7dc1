"""The routes declared from tables (:mod:`services.gateway.routers.params`) answer and are documented as the
decorated endpoints they replaced: the same OpenAPI operation (ids, parameters, bodies, answers) and the
same answers, the service called with the parameters in their order."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Path, Response
from fastapi.testclient import TestClient
from pydantic import BaseModel

from services.gateway.routers.params import add_call_route, add_call_routes, add_post_routes, download

Item = Annotated[str, Path(min_length=1, max_length=8, description="an item's id")]


class Shelf:
    """A stand-in for a router's dependency: what the service reads, and what it was asked."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []


SHELF = Shelf()
Shelved = Annotated[Shelf, Depends(lambda: SHELF)]


class Out(BaseModel):
    item: str
    seen: int


class In(BaseModel):
    text: str


async def read(shelf: Shelf, item: str) -> Out:
    shelf.calls.append(("read", item))
    return Out(item=item, seen=len(shelf.calls))


async def remove(shelf: Shelf, item: str) -> None:
    shelf.calls.append(("remove", item))


async def write(body: In, shelf: Shelf) -> Out:
    shelf.calls.append(("write", body.text))
    return Out(item=body.text, seen=len(shelf.calls))


def decorated() -> APIRouter:
    router = APIRouter(prefix="/v1/items")

    @router.get("/{item}", response_model=Out, summary="An item")
    async def get_item(item: Item, s: Shelved) -> Out:
        return await read(s, item)

    @router.delete("/{item}", status_code=204, response_class=Response, summary="Remove an item")
    async def delete_item(item: Item, s: Shelved) -> Response:
        await remove(s, item)
        return Response(status_code=204)

    @router.post("/write", response_model=Out, summary="Write an item")
    async def write_item(body: In, s: Shelved) -> Out:
        return await write(body, s)

    @router.get("/{item}/again", response_model=Out, summary="An item, once more")
    async def again(s: Shelved, item: Item) -> Out:
        return await read(s, item)

    return router


def tabled() -> APIRouter:
    router = APIRouter(prefix="/v1/items")
    add_call_routes(router, {"s": Shelved, "item": Item}, (
        ("GET", "/{item}", "get_item", Out, read, "An item"),
        ("DELETE", "/{item}", "delete_item", None, remove, "Remove an item"),
    ))  # fmt: skip
    add_post_routes(router, {"s": Shelved}, (("/write", "write_item", In, Out, write, "Write an item"),))
    add_call_route(
        router, "GET", "/{item}/again", read, {"s": Shelved, "item": Item}, name="again", response_model=Out,
        summary="An item, once more",
    )  # fmt: skip
    return router


def app_of(router: APIRouter) -> FastAPI:
    app = FastAPI()
    app.include_router(router)
    return app


def test_a_tabled_route_is_documented_as_its_decorated_endpoint() -> None:
    before, after = app_of(decorated()).openapi(), app_of(tabled()).openapi()
    assert after == before
    ids = {op["operationId"] for item in after["paths"].values() for op in item.values()}
    assert {"get_item_v1_items__item__get", "delete_item_v1_items__item__delete"} <= ids


def test_a_tabled_route_answers_as_its_decorated_endpoint() -> None:
    for router in (decorated(), tabled()):
        SHELF.calls.clear()
        with TestClient(app_of(router)) as http:
            assert http.get("/v1/items/a1").json() == {"item": "a1", "seen": 1}
            gone = http.delete("/v1/items/a1")
            assert (gone.status_code, gone.content) == (204, b"")
            assert http.post("/v1/items/write", json={"text": "b2"}).json() == {"item": "b2", "seen": 3}
            assert http.get("/v1/items/c3/again").json() == {"item": "c3", "seen": 4}
            assert http.get("/v1/items/far-too-long").status_code == 422
            assert http.post("/v1/items/write", json={}).status_code == 422
        assert SHELF.calls == [("read", "a1"), ("remove", "a1"), ("write", "b2"), ("read", "c3")]


def test_a_download_is_named() -> None:
    r = download("1 point match", "text/plain; charset=utf-8", "mine.mat")
    assert r.body == b"1 point match"
    assert r.headers["content-type"] == "text/plain; charset=utf-8"
    assert "mine.mat" in r.headers["content-disposition"]


def test_the_gateways_tabled_routes_keep_their_operation_ids() -> None:
    """The operation ids are those of the decorated endpoints the tables replaced (clients generated from
    the OpenAPI document name their methods after them)."""
    from services.gateway.app import create_app

    spec: dict[str, Any] = create_app().openapi()
    ops = {
        (path, method): op["operationId"]
        for path, item in spec["paths"].items()
        for method, op in item.items()
    }
    assert ops[("/v1/players/{player_id}", "get")] == "get_player_v1_players__player_id__get"
    assert ops[("/v1/players/{player_id}", "delete")] == "delete_player_v1_players__player_id__delete"
    assert (
        ops[("/v1/players/{player_id}/statistics/reset", "post")]
        == "reset_statistics_v1_players__player_id__statistics_reset_post"
    )
    assert ops[("/v1/games/{game_id}/verify", "post")] == "verify_v1_games__game_id__verify_post"
    assert ops[("/v1/legal-plays", "post")] == "legal_plays_v1_legal_plays_post"
    assert ops[("/v1/cube-decision", "post")] == "decide_v1_cube_decision_post"
    assert ops[("/v1/matches/{match_id}", "delete")] == "delete_match_v1_matches__match_id__delete"
    assert (
        ops[("/v1/library/positions/{entry_id}", "patch")]
        == "change_position_v1_library_positions__entry_id__patch"
    )
    assert ops[("/v1/players/{player_id}/cards", "get")] == "deck_v1_players__player_id__cards_get"
    reset = spec["paths"]["/v1/players/{player_id}/statistics/reset"]["post"]
    assert [p["name"] for p in reset["parameters"] if p["in"] == "path"] == ["player_id"]
    assert reset["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Statistics"
    }
