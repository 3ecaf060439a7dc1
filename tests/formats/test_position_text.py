"""The one reader of position text (issue 45): Position ID, PositionID:MatchID, XGID and OGID read alike by
the library, the command line, the play start, the REST parameters and the jobs; typed errors, fast on
hostile text."""

from __future__ import annotations

import contextlib
import random
from dataclasses import replace

import pytest

from pulvezar.cli.common import parse_position
from pulvezar.errors import IllegalIdError, InvalidIdError, MalformedIdError
from pulvezar.formats.position_text import (
    KINDS,
    MAX_POSITION_TEXT,
    read_position_text,
    to_position_text,
)
from pulvezar.play.start import Start
from pulvezar.rules.matchid import MatchId, parse_gnubg_id
from pulvezar.rules.ogid import IllegalOgidError, InvalidOgidError, from_ogid
from pulvezar.rules.position import Position
from pulvezar.rules.xgid import XGID
from services.gateway.models import parse_position as gateway_position
from services.gateway.problems import ProblemError
from services.jobs.kinds.deep import DeepRequest
from services.jobs.kinds.deep_cube import cube_options
from services.jobs.kinds.evaluations import _position as evaluation_position
from services.jobs.rollout_items import normalise_item
from tests.cost import cost_ratio

START = "4HPwATDgc/ABMA"
GNUBG = f"{START}:QYkqASAAIAAA"  # 9-point match, 2-4, player 1 rolled 52, the cube at 2
XGID_52 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10"
BEAVER = "XGID=-b----E-C---eE---c-e----B-:1:1:1:B:0:0:0:0:10"
OGID_52 = "11ccccchhhjjjjj:66666888dddddoo:W1N:52:W:R:0:0:7:3"
ALL = {"position_id": START, "gnubg_id": GNUBG, "xgid": XGID_52, "ogid": OGID_52}


def test_each_form_reads_as_its_own_parser_reads_it() -> None:
    for kind, text in ALL.items():
        r = read_position_text(f"  {text}\n")
        assert r.kind == kind
    assert read_position_text(START).position == Position.from_position_id(START)
    p, m = parse_gnubg_id(GNUBG)
    r = read_position_text(GNUBG)
    assert (r.position, r.match, r.dice) == (p, m, (5, 2))
    x = XGID.parse(XGID_52)
    r = read_position_text("xgid=" + XGID_52[5:])
    assert (r.position, r.xgid, r.match, r.dice) == (x.position, x, x.to_match_id(), (5, 2))
    o = from_ogid(OGID_52)
    r = read_position_text("OGID=" + OGID_52)
    assert (r.ogid, r.xgid, r.position) == (o, o.to_xgid(), o.to_xgid().position)
    r = read_position_text(BEAVER)  # a beaver has no Match ID form, but is an XGID
    assert r.match is None and r.xgid == XGID.parse(BEAVER)


def _game(m: MatchId) -> MatchId:
    """What every form keeps: the dice in either order (an OGID writes the low die first), the Jacoby
    rule in money play only (a Match ID keeps the flag in a match, where it means nothing)."""
    return replace(m, dice=tuple(sorted(m.dice)), jacoby=m.jacoby and not m.match_length)


def test_every_form_written_reads_back_as_the_same_state() -> None:
    for text in ALL.values():
        r = read_position_text(text)
        for kind in KINDS:
            back = read_position_text(to_position_text(r, kind))
            assert back.kind == kind and back.position == r.position, (text, kind)
            if kind != "position_id" and r.match is not None:
                assert back.match is not None
                assert _game(back.match) == _game(r.match), (text, kind)
    with pytest.raises(IllegalIdError):
        to_position_text(read_position_text(BEAVER), "gnubg_id")
    m = read_position_text(to_position_text(read_position_text(START), "xgid")).match
    assert m is not None  # a bare Position ID: money play, the cube centred, nothing rolled
    assert (m.match_length, m.cube_value, m.cube_owner, m.dice, m.jacoby) == (0, 1, None, (0, 0), True)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("4HPwATDgc/ABM!", MalformedIdError),
        ("4HPwATDgc", MalformedIdError),
        ("/////////////w", IllegalIdError),  # well-formed bits, too many checkers
        (f"{START}:cAk!AAAAAAAA", MalformedIdError),
        (f"{START}:////////////", IllegalIdError),
        ("XGID=-b--:0:0:1:52:0:0:0:7:10", MalformedIdError),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:5x:0:0:0:7:10", MalformedIdError),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:9:0:0:7:10", IllegalIdError),  # score past the length
        ("XGID=OOOOOOE-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10", IllegalIdError),  # too many checkers
        ("11ccccchhhjjjjj:66666888dddddoo:X0N::W", InvalidOgidError),
        ("OGID=1:1:N0N::W", IllegalOgidError),
    ],
)
def test_invalid_and_illegal_are_told_apart(text: str, error: type[InvalidIdError]) -> None:
    with pytest.raises(error) as e:
        read_position_text(text)
    other = IllegalIdError if issubclass(error, MalformedIdError) else MalformedIdError
    assert not isinstance(e.value, other) and e.value.field
    with pytest.raises(error):  # the command line keeps the class, naming the forms
        parse_position(text)


def _hostile(rng: random.Random) -> str:
    alphabet = "0123456789abcdefghijklmnopABCDEFGHIJKLMNOP-+/=:;, \t\n\x00éğ☃\u202e\U0001f3b2XGIDogid"
    n = rng.choice((0, 1, 5, 14, 27, 40, 70, 128, 199, 200, 201, 5000))
    s = "".join(rng.choice(alphabet) for _ in range(n))
    return rng.choice(("", "XGID=", "OGID=", "ogid:", START + ":", "11ccccchhhjjjjj:")) + s


def test_hostile_text_gets_the_typed_error_quickly() -> None:
    rng = random.Random(45)
    texts = [_hostile(rng) for _ in range(1000)]
    texts += [":" * 199, "1" * 199, "-" * 26 + ":9" * 9, "9" * 10**6, "OGID=" + "p" * 10**6, "\u00a0" * 300]
    texts += [START + ":" + "A" * 12 + "\x00", f"{START}:{'A' * 12}:{'A' * 12}", "XGID=" + ":" * 9]

    def read_all(batch: list[str]) -> None:
        for text in batch:
            with contextlib.suppress(MalformedIdError, IllegalIdError):  # nothing else may escape
                read_position_text(text)

    read_all(texts)
    # per text, the hostile ones (a megabyte among them) cost about what good IDs of every form do
    good = list(ALL.values()) * (len(texts) // len(ALL) + 1)
    assert cost_ratio(lambda: read_all(texts), lambda: read_all(good[: len(texts)])) < 10
    for long in ("9" * 10**6, "XGID=" + "0:" * 10**5):
        with pytest.raises(MalformedIdError, match=f"at most {MAX_POSITION_TEXT} characters"):
            read_position_text(long)
    for other in (None, 14, b"4HPwATDgc/ABMA"):
        with pytest.raises(MalformedIdError):
            read_position_text(other)


def test_every_reader_takes_all_four_forms() -> None:
    for kind, text in ALL.items():
        want = read_position_text(text).position
        assert parse_position(text).position == want
        assert Start.parse(text).position == want, kind  # the play start took no OGID before
        assert gateway_position(text).position == want and gateway_position(text).kind == kind
        assert evaluation_position(text) == want, kind  # the evaluation jobs took no gnubg ID before
        item = normalise_item({"position": text, "trials": 36}, "")
        assert item["position_id"] == want.position_id
        assert item["dice"] == (None if kind == "position_id" else [5, 2]), kind
        if kind != "position_id":  # the deep analyses: the ID's dice and cube (no gnubg ID before)
            assert DeepRequest(position=text).dice == (5, 2), kind
            c, a = cube_options(None, text), parse_position(text)
            assert (c["value"], c["owner"], c["match_length"], c["score"], c["opponent_score"]) == (
                a.cube_value,
                a.cube_owner,
                a.match_length,
                *a.score,
            ), kind
    with pytest.raises(ProblemError):
        gateway_position("x" * 150)
    with pytest.raises(ValueError, match="XGID"):
        evaluation_position("XGID=-b--:0:0:1:52:0:0:0:7:10")


def test_an_xgid_before_the_roll_is_a_rollout_without_dice() -> None:
    """An XGID's ``00`` (nothing rolled) is no dice: it was read as the dice (0, 0) and refused."""
    before = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    assert normalise_item({"position": before, "trials": 36}, "")["dice"] is None
    assert normalise_item({"kind": "cube", "xgid": before, "trials": 36}, "")["kind"] == "cube"
