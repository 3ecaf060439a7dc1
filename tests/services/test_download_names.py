"""Downloads name their file as RFC 6266 and RFC 5987 say (``services.gateway.uploads.content_disposition``):
``attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>``, whatever the name's
characters.  Issue 40: a match uploaded as ``maç-ğ.mat`` answered 500 at ``GET /v1/matches/{id}/file``
(the name is not Latin-1), and the analysis export dropped every non-ASCII letter of its name."""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
from fastapi.testclient import TestClient

from services.gateway.app import create_app
from services.gateway.settings import GatewaySettings
from services.gateway.uploads import content_disposition
from services.store.db import upgrade

KEY = "names-key"
NAME = "maç-ğ.mat"
TINY = Path(__file__).resolve().parent / "data" / "gnubg_roll_then_resign_1p.mat"  # 1 point, 1 game


def disposition(header: str) -> tuple[str, str | None, str | None]:
    """The disposition type, the ``filename`` and the decoded ``filename*`` of a header (RFC 6266's
    grammar: a token, then ``;``-separated parameters, a quoted string or an RFC 5987 ext-value)."""
    kind, _, rest = header.partition(";")
    params = dict(re.findall(r'\s*([A-Za-z*]+)=("[^"\\]*"|[^;\s]+)\s*(?:;|$)', rest))
    assert "; ".join(f"{k}={v}" for k, v in params.items()) == rest.strip(), f"not RFC 6266: {header!r}"
    plain = params["filename"].strip('"') if "filename" in params else None
    ext = params.get("filename*")
    decoded = None
    if ext is not None:
        charset, _, encoded = ext.partition("''")
        assert charset == "UTF-8" and re.fullmatch(r"[A-Za-z0-9!#$&+.^_`|~%-]*", encoded), ext
        decoded = unquote(encoded, encoding="utf-8", errors="strict")
    return kind.strip(), plain, decoded


@pytest.mark.parametrize(
    "name",
    [NAME, "plain.mat", "中文 match.sgf", 'a"b\\c;d.mat', "x\r\nSet-Cookie: a=b.mat", "ünïcödé 100%.xg", ""],
)
def test_every_name_is_a_latin1_header_with_an_ascii_fallback(name: str) -> None:
    header = content_disposition(name)
    header.encode("latin-1")  # what the ASGI server must send
    assert "\r" not in header and "\n" not in header
    kind, plain, decoded = disposition(header)
    assert kind == "attachment"
    assert plain is not None and plain.isascii() and '"' not in plain and "\\" not in plain
    assert decoded  # every header carries the UTF-8 name
    if name and name.isprintable() and not set(name) & set('"\\;%/'):
        assert decoded == name  # the name as given, for clients that read filename*


@pytest.fixture(scope="module")
def gateway() -> Iterator[TestClient]:
    url = f"sqlite:///{tempfile.mkdtemp(prefix='names-')}/pulvezar.db"
    upgrade(url)
    app = create_app(
        GatewaySettings(
            api_keys={KEY: {"name": "names", "rate_per_s": 1000, "burst": 1000}},
            rules_address="127.0.0.1:9",
            evaluator_address="127.0.0.1:9",
        )  # type: ignore[call-arg]
    )
    app.state.database_url = url
    with TestClient(app, headers={"X-API-Key": KEY}, raise_server_exceptions=False) as c:
        yield c


def test_a_stored_upload_with_a_turkish_name_downloads(gateway: TestClient) -> None:
    data = TINY.read_bytes()
    up = gateway.post("/v1/matches", files={"file": (NAME, data)})
    assert up.status_code == 200, up.text
    assert up.json()["filename"] == NAME
    r = gateway.get(f"/v1/matches/{up.json()['id']}/file")
    assert r.status_code == 200, r.text  # 500 before: the header could not be encoded
    assert r.content == data
    kind, plain, decoded = disposition(r.headers["content-disposition"])
    assert (kind, plain, decoded) == ("attachment", "mac-g.mat", NAME)


@pytest.mark.slow
def test_the_analysis_export_keeps_the_name(shared_platform: Any) -> None:
    """The annotated SGF of a match named ``maç-ğ.mat`` downloads as ``maç-ğ-analysis.sgf``."""
    shared_platform.ready()
    with httpx.Client(base_url=shared_platform.base, headers={"X-API-Key": "e2e-key"}, timeout=30) as c:
        body = {"file": TINY.read_text(), "filename": NAME, "level": "0ply"}
        r = c.post("/v1/analyses", json=body)
        assert r.status_code == 202, r.text
        href = r.headers["Location"]
        deadline = time.monotonic() + 120
        while (state := c.get(href, params={"games": "false"}).json()["state"]) != "done":
            assert state in ("queued", "running") and time.monotonic() < deadline, state
            time.sleep(0.1)
        sgf = c.get(f"{href}/sgf")
        assert sgf.status_code == 200, sgf.text
        kind, plain, decoded = disposition(sgf.headers["content-disposition"])
        assert (kind, plain, decoded) == ("attachment", "mac-g-analysis.sgf", "maç-ğ-analysis.sgf")
        assert c.delete(href).status_code in (200, 204)  # the e2e modules' key: leave its jobs as found
