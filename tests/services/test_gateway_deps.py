"""The gateway's dependencies (services/gateway/services/deps.py) are made once, in the app's lifespan: every
request gets the same store records and bots' evaluator, and the evaluator the app made is closed when the
app stops (the lifespan's end)."""

from __future__ import annotations

import tempfile
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.gateway.app import create_app
from services.gateway.services.deps import Dependencies
from services.gateway.settings import GatewaySettings
from services.store.db import StoreRequired, upgrade

KEY = "deps-key"


def test_the_dependencies_are_made_once_in_the_lifespan(monkeypatch: Any) -> None:
    url = f"sqlite:///{tempfile.mkdtemp(prefix='deps-')}/pulvezar.db"
    upgrade(url)
    closed: list[bool] = []
    from services.common.remote_evaluator import GrpcEvaluator

    monkeypatch.setattr(GrpcEvaluator, "close", lambda self: closed.append(True))
    app = create_app(
        GatewaySettings(
            api_keys={KEY: {"name": "deps", "rate_per_s": 1000, "burst": 1000}},
            rules_address="127.0.0.1:9",
            evaluator_address="127.0.0.1:9",
        )  # type: ignore[call-arg]
    )
    app.state.database_url = url
    assert not hasattr(app.state, "deps")
    with TestClient(app, headers={"X-API-Key": KEY}) as http:
        deps = app.state.deps
        assert isinstance(deps, Dependencies) and deps.url == url
        made = (deps.games, deps.players, deps.cards, deps.evaluator)
        assert all(x is not None for x in made)
        for _ in range(2):
            assert http.get("/v1/games").status_code == 200
            assert http.get("/v1/players").status_code == 200
        assert app.state.deps is deps  # the same records and evaluator served every request
        assert (deps.games, deps.players, deps.cards, deps.evaluator) == made
        assert not closed
    assert closed == [True]


def test_without_a_store_the_app_does_not_start(monkeypatch: Any) -> None:
    """The durable store is required (docs/store.md): no ``PULVEZAR_DATABASE_URL``, no start, and the
    refusal names the variable (the processes' refusals: test_store_required.py)."""
    monkeypatch.delenv("PULVEZAR_DATABASE_URL", raising=False)
    app = create_app(
        GatewaySettings(
            api_keys={KEY: {"name": "deps", "rate_per_s": 1000, "burst": 1000}},
            rules_address="127.0.0.1:9",
            evaluator_address="127.0.0.1:9",
        )  # type: ignore[call-arg]
    )
    refused = "the gateway needs the durable store: set PULVEZAR_DATABASE_URL"
    with pytest.raises(StoreRequired, match=refused), TestClient(app, headers={"X-API-Key": KEY}):
        pass  # pragma: no cover (the start fails)
    assert not hasattr(app.state, "deps")  # nothing was made
