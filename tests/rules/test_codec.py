"""The domain codec: rule sets and cube states to and from JSON (`Rules.to_dict`/`from_dict`,
`CubeState.to_dict`/`from_dict`), the one place the services read them."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from pulvezar import CubeState, InvalidValueError, Position, PulvezarError, Rules

ALL_RULES = [Rules.international()] + [Rules.tavla(h, m) for h in (False, True) for m in (False, True)]


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.name)
def test_rules_round_trip(rules: Rules) -> None:
    data = rules.to_dict()
    assert Rules.from_dict(json.loads(json.dumps(data))) == rules
    assert set(data) == {"variant", "hit_and_stop", "must_bear_off"}


@pytest.mark.parametrize(
    ("value", "field"),
    [
        (None, "rules"),
        (3, "rules"),
        ("chess", "rules.variant"),
        ({"variant": "plakoto"}, "rules.variant"),
        ({"variant": "tavla", "hit_and_stop": 1}, "rules.hit_and_stop"),
        ({"variant": "tavla", "must_bear_off": "yes"}, "rules.must_bear_off"),
        ({"variant": "international", "hit_and_stop": True}, "rules.hit_and_stop"),
        ({"must_bear_off": True}, "rules.must_bear_off"),
        ({"variant": "tavla", "doubling": True}, "rules.doubling"),
    ],
)
def test_rules_errors_name_the_field(value: Any, field: str) -> None:
    with pytest.raises(InvalidValueError) as e:
        Rules.from_dict(value)
    assert e.value.field == field
    assert isinstance(e.value, PulvezarError) and isinstance(e.value, ValueError)


def test_rules_from_a_bare_variant_and_defaults() -> None:
    assert Rules.from_dict("tavla") == Rules.tavla()
    assert Rules.from_dict({}) == Rules.international()
    assert Rules.from_dict({"variant": "tavla"}, field="items[2].rules") == Rules.tavla()
    with pytest.raises(InvalidValueError) as e:
        Rules.from_dict({"variant": 7}, field="items[2].rules")
    assert e.value.field == "items[2].rules.variant"


CUBES = [
    {},
    {"value": 2, "owner": "player"},
    {"value": 4, "owner": "opponent", "match_length": 7, "score": 3, "opponent_score": 5},
    {"match_length": 5, "score": 4, "opponent_score": 2, "crawford": True},
    {"value": 8, "owner": "player", "jacoby": True, "beaver": True},
]


@pytest.mark.parametrize("value", CUBES)
def test_cube_round_trip(value: dict[str, Any]) -> None:
    state = CubeState.from_dict(Position.start(), value)
    again = CubeState.from_dict(Position.start(), json.loads(json.dumps(state.to_dict())))
    assert again == state
    assert {k: state.to_dict()[k] for k in value} == value


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ("2", "cube"),
        ({"value": 3}, "cube.value"),
        ({"value": 0}, "cube.value"),
        ({"value": 1 << 16}, "cube.value"),
        ({"value": True}, "cube.value"),
        ({"owner": "nobody"}, "cube.owner"),
        ({"match_length": 26}, "cube.match_length"),
        ({"match_length": 5, "score": 5}, "cube.score"),
        ({"match_length": 5, "crawford": True}, "cube.crawford"),
        ({"crawford": "no"}, "cube.crawford"),
        ({"match_length": 5, "jacoby": True}, "cube"),
        ({"colour": "white"}, "cube.colour"),
    ],
)
def test_cube_errors_name_the_field(value: Any, field: str) -> None:
    with pytest.raises(InvalidValueError) as e:
        CubeState.from_dict(Position.start(), value)
    assert e.value.field == field


def test_tavla_has_no_cube() -> None:
    with pytest.raises(InvalidValueError) as e:
        CubeState.from_dict(Position.start(), {}, rules=Rules.tavla())
    assert e.value.field == "cube"


def _junk(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value, biased towards the codec's own keys."""
    keys = ["variant", "hit_and_stop", "must_bear_off", "value", "owner", "score", "match_length", "x"]
    atoms: list[Any] = [
        None,
        True,
        False,
        0,
        1,
        2,
        -1,
        25,
        1 << 15,
        3.5,
        "tavla",
        "international",
        "centre",
        "",
    ]
    if depth < 2 and rng.random() < 0.5:
        return {rng.choice(keys): _junk(rng, depth + 1) for _ in range(rng.randrange(4))}
    return rng.choice(atoms)


def test_fuzzed_values_decode_or_raise_the_typed_error() -> None:
    rng = random.Random(42)
    decoded = 0
    for _ in range(3000):
        value = _junk(rng)
        for decode in (Rules.from_dict, lambda v: CubeState.from_dict(Position.start(), v)):
            try:
                decode(value)
                decoded += 1
            except InvalidValueError as e:
                assert e.field is not None and str(e)
    assert decoded > 100
