"""The CLI profile: ``config.toml`` with the player who uses this command line.

The file is ``$PULVEZAR_CONFIG`` when set, else ``$XDG_CONFIG_HOME/pulvezar/config.toml`` (default
``~/.config/pulvezar/config.toml``); a missing file is an empty profile.  It holds ``player = "NAME"``:
the default of ``--player`` for ``pulvezar play`` and ``pulvezar match analyse``, and ``lang = "de"``: the
default of every user command's ``--lang`` (:func:`~pulvezar.cli.common.lang_of`).  Other keys are left for
later commands and ignored here.  A file that is not TOML, or whose ``player`` is not a non-empty string
of at most 100 characters, is a :class:`~pulvezar.errors.PulvezarError` naming the file and the key.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Sequence
from pathlib import Path

from pulvezar import i18n
from pulvezar.errors import PulvezarError
from pulvezar.i18n import t

__all__ = ["MAX_NAME", "config_path", "default_lang", "default_player", "player_of", "side_of"]

#: a player's name: as the platform's players (``POST /v1/players``) take it
MAX_NAME = 100
#: a config file is a few lines; a bigger one is not read
MAX_BYTES = 64 * 1024


def config_path() -> Path:
    """Where the profile is read from (see the module's docstring)."""
    given = os.environ.get("PULVEZAR_CONFIG")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "pulvezar" / "config.toml"


def _profile(path: Path, lang: str) -> dict[str, object] | None:
    """The profile's keys, None when the file is absent."""
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise PulvezarError(f"{path}: {e.strerror or e}", field="config") from None
    if len(raw) > MAX_BYTES:
        raise PulvezarError(t("cli.config.too_big", lang, path=path, n=MAX_BYTES), field="config")
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise PulvezarError(t("cli.config.not_toml", lang, path=path, error=e), field="config") from None


def default_player(path: Path | None = None, lang: str = "en") -> str | None:
    """The profile's ``player`` (stripped), or None when the file or the key is absent."""
    path = config_path() if path is None else path
    data = _profile(path, lang)
    if data is None or "player" not in data:
        return None
    return _name(data["player"], f"{path}: player", lang)


def default_lang(path: Path | None = None) -> str | None:
    """The profile's ``lang`` as a language offered (``de_DE`` gives ``de``, one not offered English), or
    None when the file, the key or a readable file is absent: the profile's errors are the player's."""
    try:
        data = _profile(config_path() if path is None else path, "en")
    except PulvezarError:
        return None
    value = (data or {}).get("lang")
    return i18n.lang_of(value) if isinstance(value, str) and value.strip() else None


def player_of(given: str | None, lang: str = "en") -> tuple[str | None, bool]:
    """The player of a command: ``--player`` when given (explicit: True), else the profile's (False)."""
    if given is not None:
        return _name(given, "--player", lang), True
    return default_player(lang=lang), False


def _name(value: object, where: str, lang: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > MAX_NAME:
        raise PulvezarError(t("cli.config.bad_name", lang, where=where, n=MAX_NAME), field="player")
    return value.strip()


def side_of(players: Sequence[str], name: str) -> int | None:
    """Which of a match's players ``name`` is, by the seed's rule for imports: the names compare trimmed and
    without case, and exactly one player must have it (None: neither, or both)."""
    wanted = name.strip().casefold()
    found = [i for i, p in enumerate(players) if str(p).strip().casefold() == wanted]
    return found[0] if len(found) == 1 else None
