"""The command-line tests run without the user's profile: ``PULVEZAR_CONFIG`` names a file that is not there
(:mod:`pulvezar.cli.config`), so a ``player`` in ``~/.config/pulvezar/config.toml`` changes no output."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def no_profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PULVEZAR_CONFIG", str(tmp_path / "no-profile.toml"))
