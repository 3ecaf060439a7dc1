"""A job kind added as one file outside ``services/jobs/kinds`` (issue 42): ``kinds_extra/echo_kind.py``,
named by ``PULVEZAR_JOB_KINDS`` for a platform of its own (Redis, the durable store, two Celery workers,
the gateway, as ``shared_platform.py`` starts them), is submitted over REST, runs on the workers, and its
report is read back; nothing else names it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

EXTRA = Path(__file__).resolve().parent / "kinds_extra"
KEY = "kinds-key"


@pytest.fixture(scope="module")
def platform(
    tmp_path_factory: pytest.TempPathFactory, redis_binary: str, start: Any, service_process: Any
) -> Iterator[Any]:
    """A platform whose processes read ``PULVEZAR_JOB_KINDS=echo_kind`` (this process's registry is left
    as it is: the variable is set only while they start).  The conftest's parts come as fixtures: under
    pytest-xdist ``import conftest`` may find another folder's conftest."""
    pytest.importorskip("celery")
    from shared_platform import SharedPlatform

    path = os.pathsep.join(p for p in (str(EXTRA), os.environ.get("PYTHONPATH", "")) if p)
    saved = {name: os.environ.get(name) for name in ("PULVEZAR_JOB_KINDS", "PYTHONPATH")}
    os.environ.update({"PULVEZAR_JOB_KINDS": "echo_kind", "PYTHONPATH": path})
    try:
        started = SharedPlatform(tmp_path_factory.mktemp("extra"), redis_binary, start, service_process)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    try:
        yield started
    finally:
        started.close()


def test_a_kind_from_one_file_runs_over_rest(platform: Any) -> None:
    with httpx.Client(base_url=platform.base, headers={"X-API-Key": KEY}, timeout=30) as c:
        bad = c.post("/v1/echoes", json={"words": []})
        assert bad.status_code == 422 and "words" in bad.text, bad.text
        sent = c.post("/v1/echoes", json={"words": ["gammon", "cube", "pip"]})
        assert sent.status_code == 202, sent.text
        href = sent.headers["Location"]
        deadline = time.monotonic() + 60
        while (job := c.get(href).json())["state"] not in ("done", "failed", "cancelled"):
            assert time.monotonic() < deadline, job
            time.sleep(0.1)
        assert job["state"] == "done" and job["kind"] == "echo", job
        result = c.get(f"{href}/result")
        assert result.status_code == 200, result.text
        assert result.json()["report"] == {"echoed": ["GAMMON", "CUBE", "PIP"]}
        assert [j["id"] for j in c.get("/v1/echoes").json()["jobs"]] == [job["id"]]
        assert c.get(href, headers={"X-API-Key": "owners-a"}).status_code == 404  # another key's


def test_the_registry_reads_the_extra_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    from services.jobs.kinds import EXTRA_KINDS_ENV, modules

    monkeypatch.syspath_prepend(str(EXTRA))
    monkeypatch.setenv(EXTRA_KINDS_ENV, " echo_kind , ")
    assert [m.__name__ for m in modules()][-1] == "echo_kind"
    monkeypatch.setenv(EXTRA_KINDS_ENV, "no_such_kind_module")
    with pytest.raises(ModuleNotFoundError):
        modules()
