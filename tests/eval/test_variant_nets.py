"""A model's own nets for a Tavla rule set (issue 28): the model file round-trips them, ``for_rules``
routes each rule set to its nets (the rest shared), and the search, rollouts and self-play use them."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import numpy as np
import pytest
import torch

from pulvezar import Position, Rules
from pulvezar.eval import _forward
from pulvezar.eval.evaluator import (
    BearoffRaces,
    NetEvaluator,
    board_flags,
    boards_of,
    default_evaluator,
    for_rules,
    terminal,
    variant_rulesets,
)
from pulvezar.eval.nets import ValueNet
from pulvezar.rollouts import rollout
from pulvezar.search.hint import hint, searcher
from pulvezar.search.plies import Search
from pulvezar.train.corpus import selfplay_block

MB = Rules.tavla(must_bear_off=True)
HS = Rules.tavla(hit_and_stop=True)


def shifted(net: ValueNet, by: float) -> ValueNet:
    """A copy of ``net`` whose win logit is ``by`` higher: a net that values every board otherwise."""
    other = copy.deepcopy(net)
    with torch.no_grad():
        other.head.bias[0] += by
    return other


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = default_evaluator()
    ev = NetEvaluator(
        base.contact_net, base.race_net, device="cpu", encoding_version=base.encoding_version,
        crashed_net=base.crashed_net, variants={MB.name: {"contact": shifted(base.contact_net, 1.0)}},
        race_table_points=base.race_table_points,
    )  # fmt: skip
    path = tmp_path_factory.mktemp("variants") / "m.pt"
    ev.save(path, {"name": "variant-test"})
    return path


@pytest.fixture(scope="module")
def ev(model: Path) -> NetEvaluator:
    return NetEvaluator.load(model, device="cpu")


def game_boards(rules: Rules, n: int, seed: int) -> np.ndarray:
    rng, out, p = random.Random(seed), [], rules.start_position()
    while len(out) < n:
        out.append(p)
        plays = rules.legal_plays(p, (rng.randint(1, 6), rng.randint(1, 6)))
        q = plays[rng.randrange(len(plays))].position
        p = rules.start_position() if rules.game_result(q) is not None else q.swap()
    return boards_of(out)


class BaseOnly:
    """The base nets of a model and nothing else (no ``for_rules``)."""

    def __init__(self, ev: NetEvaluator) -> None:
        self.ev = ev

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:
        return self.ev.evaluate_boards(boards)


def test_the_model_file_names_and_round_trips_its_variant_nets(model: Path, ev: NetEvaluator) -> None:
    meta = json.loads(model.with_suffix(".json").read_text())
    assert meta["variants"] == [MB.name]
    assert ev.info is not None and ev.info.variants == (MB.name,)
    assert set(ev.variants) == {MB.name} and set(ev.variants[MB.name]) == {"contact"}
    own = ev.for_rules(MB)
    assert own is not ev and own.rules_name == MB.name and ev.rules_name is None
    assert own.contact_net is ev.variants[MB.name]["contact"]
    assert own.race_net is ev.race_net and own.crashed_net is ev.crashed_net  # shared
    assert own.races is ev.races and own.two_sided is ev.two_sided


def test_for_rules_routes_each_rule_set(ev: NetEvaluator) -> None:
    own = ev.for_rules(MB)
    assert ev.for_rules(MB) is own  # made once
    assert own.for_rules(MB) is own and own.for_rules(Rules.international()) is ev
    for rules in (Rules.international(), Rules.tavla(), HS, Rules.tavla(True, True)):
        assert ev.for_rules(rules) is ev  # no nets of their own: the base
        assert for_rules(ev, rules) is ev
    assert for_rules(ev, MB) is own and for_rules(ev, None) is ev
    plain = BaseOnly(ev)
    assert for_rules(plain, MB) is plain  # an evaluator without the method is itself for every rule set


def test_the_variant_nets_value_their_boards_and_the_rest_is_shared(ev: NetEvaluator) -> None:
    boards = game_boards(MB, 600, seed=3)
    own = ev.for_rules(MB)
    mine, base = own.evaluate_boards(boards), ev.evaluate_boards(boards)
    done, _ = terminal(boards)
    exact = done | BearoffRaces.covers(boards)
    flags = board_flags(boards)
    contact = ~exact & ((flags & _forward.FLAG_CONTACT) != 0)
    if own.crashed_net is not None:  # crashed boards go to the shared crashed net
        contact &= (flags & _forward.FLAG_CRASHED) == 0
    assert contact.sum() > 100 and (~contact & ~exact).sum() > 10
    differ = np.abs(mine - base).max(axis=1) > 1e-6
    assert differ[contact].all() and not differ[~contact].any()  # the contact net's boards only
    assert np.allclose(mine[differ], own.net_probabilities(own.contact_net, boards[differ]), atol=1e-6)
    assert (mine[differ, 0] > base[differ, 0]).all()  # the shifted win logit


def test_search_rollouts_and_self_play_use_the_rule_sets_nets(ev: NetEvaluator) -> None:
    own = ev.for_rules(MB)
    assert Search(ev, MB).evaluator is own and Search(ev, HS).evaluator is ev
    assert searcher(ev, MB) is searcher(ev, MB)  # the shared search keeps its cache
    position = Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
    routed = hint(position, (6, 5), ply=0, rules=MB, evaluator=ev)
    direct = hint(position, (6, 5), ply=0, rules=MB, evaluator=own)
    base = hint(position, (6, 5), ply=0, rules=MB, evaluator=BaseOnly(ev))
    assert [c.cubeless_equity for c in routed] == [c.cubeless_equity for c in direct]
    assert routed[0].cubeless_equity != pytest.approx(base[0].cubeless_equity, abs=1e-4)
    kw = {"trials": 36, "seed": 5, "truncate": 6, "rules": MB, "luck": "full"}
    a = rollout(position, evaluator=ev, **kw).probabilities
    assert np.array_equal(a, rollout(position, evaluator=own, **kw).probabilities)
    assert not np.allclose(a, rollout(position, evaluator=BaseOnly(ev), **kw).probabilities)
    games = {"games": 4, "lockstep": 4, "keep": 1.0, "explore_rates": [0.0]}
    sp = selfplay_block(ev, MB, np.random.default_rng(1), **games)
    assert np.array_equal(sp, selfplay_block(own, MB, np.random.default_rng(1), **games))


def test_bad_variants_are_refused(ev: NetEvaluator, tmp_path: Path) -> None:
    base = default_evaluator()
    kw = {"device": "cpu", "encoding_version": base.encoding_version}
    with pytest.raises(ValueError, match="not a Tavla rule set"):
        NetEvaluator(
            base.contact_net, base.race_net, variants={"international": {"contact": base.contact_net}}, **kw
        )
    with pytest.raises(ValueError, match="not among the model's"):
        NetEvaluator(base.contact_net, base.race_net, variants={MB.name: {"crashed": base.contact_net}}, **kw)
    with pytest.raises(ValueError, match="not among the model's"):
        NetEvaluator(base.contact_net, base.race_net, variants={MB.name: {}}, **kw)
    small = ValueNet(8, features=base.contact_net.features + 1)
    with pytest.raises(ValueError, match="inputs"):
        NetEvaluator(base.contact_net, base.race_net, variants={MB.name: {"contact": small}}, **kw)
    with pytest.raises(ValueError, match="save the base model"):
        ev.for_rules(MB).save(tmp_path / "x.pt", {})
    assert {r.name for r in variant_rulesets()} == {
        "tavla", "tavla+hit_and_stop", "tavla+must_bear_off", "tavla+hit_and_stop+must_bear_off"
    }  # fmt: skip


def test_nets_digest_tells_which_rule_sets_two_models_value_alike(model: Path, ev: NetEvaluator) -> None:
    """``nets_sha256(rules)`` (issue 43): work made under a rule set (a book) carries over to another model
    exactly when the nets for that rule set are the same, whatever else differs."""
    base = default_evaluator()
    plain = Rules.international()
    assert ev.nets_sha256(MB) != ev.nets_sha256(plain)  # MB's own contact net
    assert ev.nets_sha256(HS) == ev.nets_sha256(plain) == ev.nets_sha256(None) == base.nets_sha256(plain)
    assert ev.nets_sha256(MB) == NetEvaluator.load(model, device="cpu").nets_sha256(MB)  # the file keeps it
    other = NetEvaluator(
        base.contact_net, shifted(base.race_net, 1e-3), device="cpu", encoding_version=base.encoding_version,
        crashed_net=base.crashed_net, variants={MB.name: dict(ev.variants[MB.name])},
        race_table_points=base.race_table_points,
    )  # fmt: skip
    assert other.nets_sha256(plain) != base.nets_sha256(plain)  # one race weight differs
    no_table = NetEvaluator(
        base.contact_net, base.race_net, device="cpu", encoding_version=base.encoding_version,
        crashed_net=base.crashed_net, variants={MB.name: dict(ev.variants[MB.name])},
    )  # fmt: skip
    assert no_table.nets_sha256(plain) != base.nets_sha256(plain)  # the same nets, races valued otherwise
    assert other.nets_sha256(MB) != ev.nets_sha256(MB)  # MB's own contact net, the shared race net


def test_pulvezar_v5_values_tavla_as_v4_and_international_races_with_its_own_race_net() -> None:
    """ADR 0020: ``pulvezar-v5`` is ``pulvezar-v4`` with issue 43's race net for international games only;
    every Tavla rule set keeps v4's race net as its own, so Tavla values (races included) are v4's bit for
    bit, and international contact is v4's while international races are not."""
    from pulvezar.eval.evaluator import MODELS
    from pulvezar.train.corpus import CONTACT, RACE, classify

    v4 = NetEvaluator.load(MODELS / "pulvezar-v4.pt", device="cpu")
    v5 = NetEvaluator.load(MODELS / "pulvezar-v5.pt", device="cpu")
    for rules in variant_rulesets():
        boards = game_boards(rules, 400, seed=5)
        assert np.array_equal(
            for_rules(v4, rules).evaluate_boards(boards), for_rules(v5, rules).evaluate_boards(boards)
        )
    intl = Rules.international()
    boards = game_boards(intl, 3000, seed=6)
    classes = classify(boards)
    race, contact = boards[classes == RACE], boards[classes == CONTACT]
    assert len(race) > 20 and len(contact) > 100
    assert np.array_equal(v4.evaluate_boards(contact), v5.evaluate_boards(contact))
    assert not np.allclose(v4.evaluate_boards(race), v5.evaluate_boards(race))


def test_pulvezar_v6_is_v5_with_tavla_race_nets_of_its_own() -> None:
    """Issue 43: ``pulvezar-v6`` is ``pulvezar-v5`` with a race net for plain Tavla (and hit and stop, which
    no race can tell apart) and one for the must-bear-off sets: international values are v5's bit for bit,
    so are Tavla's contact values, and Tavla races are valued by the new nets, the same within each race
    class."""
    from pulvezar.eval.evaluator import MODELS
    from pulvezar.train.corpus import RACE, classify

    v5 = NetEvaluator.load(MODELS / "pulvezar-v5.pt", device="cpu")
    v6 = NetEvaluator.load(MODELS / "pulvezar-v6.pt", device="cpu")
    intl = Rules.international()
    assert v6.nets_sha256(intl) == v5.nets_sha256(intl)
    races: dict[Rules, np.ndarray] = {}
    for rules in variant_rulesets():
        boards = game_boards(rules, 1500, seed=7)
        race = classify(boards) == RACE
        assert race.sum() > 10 and (~race).sum() > 100
        a, b = for_rules(v5, rules).evaluate_boards(boards), for_rules(v6, rules).evaluate_boards(boards)
        assert np.array_equal(a[~race], b[~race])  # contact and crashed: v5's (v4's) Tavla nets
        assert not np.allclose(a[race], b[race])
        races[rules] = boards[race]
    both = np.concatenate(list(races.values()))
    plain, hs = for_rules(v6, Rules.tavla()), for_rules(v6, HS)
    must, both_opts = for_rules(v6, MB), for_rules(v6, Rules.tavla(hit_and_stop=True, must_bear_off=True))
    assert np.array_equal(plain.evaluate_boards(both), hs.evaluate_boards(both))
    assert np.array_equal(must.evaluate_boards(both), both_opts.evaluate_boards(both))
    assert not np.allclose(plain.evaluate_boards(both), must.evaluate_boards(both))
