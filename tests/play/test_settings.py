"""GameSettings: the JSON shape, defaults, validation with the offending field named."""

from __future__ import annotations

from typing import Any

import pytest

from pulvezar.errors import PulvezarError
from pulvezar.play import ClockSettings, GameSettings


def test_defaults_and_round_trip() -> None:
    s = GameSettings.from_dict({})
    assert s.rules.variant == "international" and s.match_length == 1 and s.dice == "server"
    assert not s.trainer and not s.auto_forced and not s.clock.enabled
    full = {
        "rules": {"variant": "international"},
        "match_length": 0,
        "money": {"jacoby": True, "beaver": True, "raccoon": True, "automatic_doubles": 1},
        "bot": {"level": "adaptive", "rating": 1650, "style": "runner"},
        "trainer": True,
        "dice": "client",
        "auto_forced": True,
        "clock": {"enabled": True, "scope": "game"},
    }
    s = GameSettings.from_dict(full)
    assert GameSettings.from_dict(s.to_dict()) == s
    assert s.to_dict()["money"]["automatic_doubles"] == 1
    tavla = GameSettings.from_dict(
        {"rules": {"variant": "tavla", "hit_and_stop": True}, "bot": {"level": "easy"}}
    )
    assert tavla.rules.hit_and_stop and not tavla.rules.uses_cube
    assert GameSettings.from_dict(tavla.to_dict()) == tavla


def test_clock_budget() -> None:
    assert ClockSettings(True).budget(1) == 120.0
    assert ClockSettings(True).budget(15) == 30 * 60.0
    assert ClockSettings(True).budget(0) == 15 * 60.0
    assert ClockSettings(True, minutes=3).budget(7) == 180.0
    assert ClockSettings.from_dict(True).enabled and ClockSettings.from_dict({"scope": "game"}).enabled
    assert not ClockSettings.from_dict(None).enabled


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"rules": {"variant": "chess"}}, "rules.variant"),
        ({"rules": {"variant": "international", "hit_and_stop": True}}, "rules.hit_and_stop"),
        ({"rules": {"variant": "tavla", "must_bear_off": "yes"}}, "rules.must_bear_off"),
        ({"rules": {"variant": "tavla"}, "match_length": 0}, "match_length"),
        ({"match_length": -1}, "match_length"),
        ({"match_length": "5"}, "match_length"),
        ({"match_length": 3, "money": {"jacoby": True}}, "money"),
        ({"rules": {"variant": "tavla"}, "money": {"beaver": True}}, "money"),
        ({"match_length": 0, "money": {"raccoon": True}}, "money.raccoon"),
        ({"match_length": 0, "money": {"automatic_doubles": 9}}, "money.automatic_doubles"),
        ({"bot": {"level": "grandmaster"}}, "bot.level"),
        ({"bot": {"style": "wild"}}, "bot.style"),
        ({"bot": {"level": "adaptive"}}, "bot.rating"),
        ({"bot": {"level": "easy", "rating": 1500}}, "bot.rating"),
        ({"bot": {"level": "adaptive", "rating": 1500, "rating_kind": "fibs"}}, "bot.rating_kind"),
        ({"dice": "loaded"}, "dice"),
        ({"trainer": 1}, "trainer"),
        ({"auto_forced": "no"}, "auto_forced"),
        ({"clock": {"scope": "move"}}, "clock.scope"),
        ({"clock": {"minutes": 0}}, "clock.minutes"),
        ({"clock": {"delay": -1}}, "clock.delay"),
        ({"colour": "dark"}, "settings"),
        ({"bot": {"level": "easy", "speed": 2}}, "bot"),
    ],
)
def test_invalid_settings_name_the_field(settings: dict[str, Any], field: str) -> None:
    with pytest.raises(PulvezarError) as e:
        GameSettings.from_dict(settings)
    assert e.value.field == field, str(e.value)


def test_not_an_object() -> None:
    with pytest.raises(PulvezarError) as e:
        GameSettings.from_dict([1, 2])
    assert e.value.field == "settings"
