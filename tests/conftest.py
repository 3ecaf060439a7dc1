"""Shared by every test folder: the bear-off tables built once, and the ``bench_module`` fixture.

Without ``make bearoff`` (``data/bearoff/*.bin`` are not committed) every :class:`NetEvaluator` builds the
one-sided table again: a second or more each time, and the training and evaluation tests make dozens of
evaluators, the service tests start dozens of processes that each make one.  The tables are immutable
and every build is the same bytes (``tests/eval/test_bearoff.py`` checks that, with
:meth:`OneSidedBearoff.build` itself), so:

- a missing ``data/bearoff/*.bin`` is written once, as ``make bearoff`` writes it, when the build's
  checksums are those of the committed JSON record beside it (else nothing is written, and
  ``test_bearoff.py`` says why); the processes the tests start (services, workers, ``make run``) read it;
- in the tests' own process ``default()`` builds or reads each table once.

A SIGTERM to a pytest process (a stopped CI job, ``kill``, ``timeout``) is turned into the
KeyboardInterrupt of Ctrl-C, so the fixtures' teardown still stops the servers and workers the
tests started instead of leaving them running.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pulvezar.eval import bearoff

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _write_missing(cls: Any, path: Any) -> None:
    if path.exists():
        return
    try:
        record = json.loads(path.with_suffix(".json").read_text())
        db = cls.build()
        image = db.to_bytes()
        if db.sha256 != record["payload_sha256"] or hashlib.sha256(image).hexdigest() != record["sha256"]:
            return
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(image)
        os.replace(tmp, path)  # whole or not at all, whichever session writes it
    except (OSError, KeyError, ValueError):
        return  # a read-only checkout: every process builds its own


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"stopped by signal {signum}")


def pytest_configure(config: pytest.Config) -> None:
    if (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    ):
        signal.signal(signal.SIGTERM, _interrupt)


_write_missing(bearoff.OneSidedBearoff, bearoff.DEFAULT_PATH)
_write_missing(bearoff.TwoSidedBearoff, bearoff.DEFAULT_TWO_SIDED_PATH)


def _once(default: Callable[[], Any], path: Any) -> Callable[[], Any]:
    tables: dict[tuple[str, bool], Any] = {}

    def cached() -> Any:
        key = (str(path), path.exists())  # `make bearoff` meanwhile: the file is read
        if key not in tables:
            tables[key] = default()
        return tables[key]

    return cached


bearoff.OneSidedBearoff.default = staticmethod(  # type: ignore[method-assign,assignment]
    _once(bearoff.OneSidedBearoff.default, bearoff.DEFAULT_PATH)
)
bearoff.TwoSidedBearoff.default = staticmethod(  # type: ignore[method-assign,assignment]
    _once(bearoff.TwoSidedBearoff.default, bearoff.DEFAULT_TWO_SIDED_PATH)
)


@pytest.fixture(autouse=True)
def no_profile(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the user's CLI profile: ``PULVEZAR_CONFIG`` names a file that is not there
    (:mod:`pulvezar.cli.config`), so a ``player`` in ``~/.config/pulvezar/config.toml`` changes nothing.
    (Here, not in tests/cli/conftest.py: a second ``conftest`` module beside this one breaks the doctest
    collection of this file under ``--doctest-modules``.)"""
    monkeypatch.setenv("PULVEZAR_CONFIG", str(tmp_path_factory.getbasetemp() / "no-profile.toml"))


@pytest.fixture(scope="session")
def bench_module() -> Callable[[str], ModuleType]:
    """``bench_module("decisions")`` imports ``bench/decisions.py`` (a script, not a package module) once."""

    def load(name: str) -> ModuleType:
        key = f"bench_{name}"
        if key not in sys.modules:
            spec = importlib.util.spec_from_file_location(key, BENCH / f"{name}.py")
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[key] = module
            spec.loader.exec_module(module)
        return sys.modules[key]

    return load
