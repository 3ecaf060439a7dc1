"""The evaluator interface and pulvezar's neural evaluator.

Every evaluator maps boards seen from the player on roll to five cumulative
probabilities ``(win, win gammon, win backgammon, lose gammon, lose
backgammon)``.  :meth:`Evaluator.evaluate_boards` is the batch method the
search, rollouts and training call; the rest is built on it.

Position classes: finished games are scored exactly; home-board endgames with
at most 6 checkers a side come from the exact two-sided bear-off database,
other races with all checkers of both sides in their home boards from the exact
one-sided one; in a model with a race table (``race_table_points``, :class:`RaceTable`), races
with every checker of both sides on points 1..9 come from it; other races go to the race net,
everything else to the contact net, except
that a model with a crashed net sends it the contact positions with a crashed side (GNU
Backgammon's test, :func:`pulvezar.eval.classes.crashed`; ``FLAG_CRASHED`` of the C flags).

Rule sets: a model may hold nets of its own for a Tavla rule set (``variants``, keyed by
:attr:`Rules.name`, e.g. ``tavla+must_bear_off``: hit and stop and must bear off change the
game, and no single net knows which is played).  The search, rollouts and self-play ask
:func:`for_rules` for the evaluator of their rule set; every other caller gets the base nets.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import os
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from pulvezar.eval import _forward
from pulvezar.eval.bearoff import OneSidedBearoff, RaceTable, TwoSidedBearoff, within_points
from pulvezar.eval.encoding import ENCODING_VERSION, FEATURES_BY_VERSION, encode, ensure_race_tables
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play, Rules

if TYPE_CHECKING:  # PyTorch is imported by the nets only: rules, search and clients of a
    import torch  # remote evaluator run without it

    from pulvezar.eval.nets import ValueNet
    from pulvezar.eval.quantised import QuantisedNet

Probs = npt.NDArray[np.float64]
Boards = npt.NDArray[np.uint8]

MODELS = Path(__file__).resolve().parent / "models"
DEFAULT_MODEL = MODELS / "pulvezar-v7.pt"
#: the cheap net that screens the plays of variance reduction's 21 rolls (rollouts' ``luck="screened"``)
SCREEN_MODEL = MODELS / "pulvezar-screen-v1.pt"


def boards_of(positions: Sequence[Position]) -> Boards:
    """Stack positions into an ``(N, 50)`` board array."""
    return np.frombuffer(b"".join(p.board for p in positions), dtype=np.uint8).reshape(-1, 50)


def swap_boards(boards: Boards) -> Boards:
    """The same boards seen by the other player."""
    return np.concatenate([boards[:, 25:], boards[:, :25]], axis=1)


def flip(probs: Probs) -> Probs:
    """Probabilities of the other player: win <-> lose, gammons exchanged."""
    out = np.empty_like(probs)
    out[:, 0] = 1.0 - probs[:, 0]
    out[:, 1], out[:, 2] = probs[:, 3], probs[:, 4]
    out[:, 3], out[:, 4] = probs[:, 1], probs[:, 2]
    return out


def equity(probs: Probs, rules: Rules | None = None) -> npt.NDArray[np.float64]:
    """Cubeless equity of ``(N, 5)`` probabilities; Tavla counts a backgammon as a mars (2)."""
    e = 2.0 * probs[:, 0] - 1.0 + probs[:, 1] - probs[:, 3]
    if rules is None or rules.variant == "international":
        e = e + probs[:, 2] - probs[:, 4]
    return e


def board_flags(boards: Boards, two_points: int = 6, two_max: int = 6) -> npt.NDArray[np.uint8]:
    """One byte of :mod:`pulvezar.eval._forward` ``FLAG_*`` bits per ``(N, 50)`` board (one C pass):
    finished (won / lost), all home, within a ``two_max``-checker ``two_points``-point two-sided
    table, contact, each side has borne off, contact with a crashed side
    (:func:`pulvezar.eval.classes.crashed`)."""
    raw = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
    return np.frombuffer(_forward.flags(raw.tobytes(), two_points, two_max), dtype=np.uint8)


def _terminal(boards: Boards, flags: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.bool_], Probs]:
    probs = np.zeros((len(boards), 5))
    won = (flags & _forward.FLAG_WON) != 0
    lost = (flags & _forward.FLAG_LOST) != 0
    done = won | lost
    if not done.any():
        return done, probs
    idx = np.flatnonzero(done)
    b = boards[idx]
    # gammon: the loser has borne off nothing; backgammon: and still has a checker
    # on the bar or in the winner's home board (loser's points 19..24)
    theirs_g = b[:, 25:].sum(axis=1, dtype=np.int32) == 15
    theirs_bg = theirs_g & (b[:, 25 + 18 : 50].sum(axis=1) > 0)
    mine_g = b[:, :25].sum(axis=1, dtype=np.int32) == 15
    mine_bg = mine_g & (b[:, 18:25].sum(axis=1) > 0)
    w, lo = won[idx], lost[idx]
    sub = np.zeros((len(idx), 5))
    sub[w, 0] = 1.0
    sub[w, 1] = theirs_g[w]
    sub[w, 2] = theirs_bg[w]
    sub[lo, 3] = mine_g[lo]
    sub[lo, 4] = mine_bg[lo]
    probs[idx] = sub
    return done, probs


def terminal(boards: Boards) -> tuple[npt.NDArray[np.bool_], Probs]:
    """Which boards are finished games, and their exact outcome for the player on roll."""
    boards = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
    return _terminal(boards, board_flags(boards))


class BearoffRaces:
    """Exact race probabilities when both sides have all checkers in their home boards."""

    def __init__(self, db: OneSidedBearoff) -> None:
        if db.points != 6 or db.max_checkers != 15:
            raise ValueError("the race table needs the 15-checker, 6-point database")
        off = db.dense()
        first = db.dense(first_off=True)
        self._off = off
        self._at_least = np.cumsum(off[:, ::-1], axis=1)[:, ::-1]  # P(X >= n)
        first_at_least = np.cumsum(first[:, ::-1], axis=1)[:, ::-1]
        self._first_at_least = first_at_least  # P(Y >= n)
        self._first_more = np.concatenate([first_at_least[:, 1:], np.zeros((len(first), 1))], axis=1)
        # comb table for the index: C(s + j - 1, j), s <= 15, j <= 6
        self._c = np.array([[comb(s + j - 1, j) if j else 0 for j in range(7)] for s in range(16)])

    @staticmethod
    def covers(boards: Boards) -> npt.NDArray[np.bool_]:
        """Boards whose both sides have every checker on points 1..6 (or off)."""
        result: npt.NDArray[np.bool_] = (board_flags(boards) & _forward.FLAG_HOME) != 0
        return result

    def index(self, home: npt.NDArray[np.uint8]) -> npt.NDArray[np.intp]:
        """Database indices of ``(N, 6)`` home boards (counts on points 1..6)."""
        s = np.cumsum(home[:, ::-1].astype(np.intp), axis=1)  # checkers on the j highest points
        j = np.arange(1, 7)
        return np.asarray(self._c[s, j].sum(axis=1), dtype=np.intp)

    def probabilities(self, boards: Boards) -> Probs:
        """Probabilities for covered boards (the player on roll moves first)."""
        im = self.index(boards[:, 0:6])
        io_ = self.index(boards[:, 25:31])
        fm = self._off[im]
        win = (fm * self._at_least[io_]).sum(axis=1)
        opp_full = boards[:, 25:31].sum(axis=1) == 15
        mine_full = boards[:, 0:6].sum(axis=1) == 15
        wg = np.where(opp_full, (fm * self._first_at_least[io_]).sum(axis=1), 0.0)
        lg = np.where(mine_full, (self._off[io_] * self._first_more[im]).sum(axis=1), 0.0)
        out = np.zeros((len(boards), 5))
        out[:, 0], out[:, 1], out[:, 3] = win, wg, lg
        return out


class Evaluator(Protocol):
    """What search, rollouts, analysis and training need from an evaluator."""

    def evaluate_boards(self, boards: Boards) -> Probs:
        """``(N, 50)`` boards -> ``(N, 5)`` probabilities for the player on roll."""
        ...


def for_rules(evaluator: Evaluator, rules: Rules | None) -> Evaluator:
    """The evaluator for games under ``rules``: ``evaluator.for_rules(rules)`` where it has that
    method (a model with nets of its own for the rule set answers with them), else ``evaluator``.

    >>> ev = default_evaluator()
    >>> for_rules(ev, Rules.international()) is ev
    True
    """
    method = getattr(evaluator, "for_rules", None)
    if method is None or rules is None:
        return evaluator
    result: Evaluator = method(rules)
    return result


def evaluate_plays(
    evaluator: Evaluator, parents: Boards, index: npt.NDArray[np.intp], after: Boards
) -> Probs:
    """``evaluator.evaluate_boards(after)`` for boards that are plays of the side on roll in
    ``parents[index[i]]`` seen by the opponent (on roll next); an evaluator with an
    ``evaluate_plays`` method (the quantised kernel's, which updates each play from its parent)
    gets the parents too."""
    method = getattr(evaluator, "evaluate_plays", None)
    if method is not None:
        result: Probs = method(parents, index, after)
        return result
    return evaluator.evaluate_boards(after)


class EvaluatorBase:
    """Convenience methods on top of :meth:`evaluate_boards`."""

    def evaluate_boards(self, boards: Boards) -> Probs:
        raise NotImplementedError

    def for_rules(self, rules: Rules) -> EvaluatorBase:
        """The evaluator for games under ``rules`` (see :func:`for_rules`); by default this one."""
        return self

    def evaluate_plays(self, parents: Boards, index: npt.NDArray[np.intp], after: Boards) -> Probs:
        """The probabilities of ``after`` (see :func:`evaluate_plays`); by default
        :meth:`evaluate_boards`'s."""
        return self.evaluate_boards(after)

    def evaluate(self, position: Position) -> Probs:
        """The five probabilities of one position."""
        probs: Probs = self.evaluate_boards(boards_of([position]))[0]
        return probs

    def evaluate_batch(self, positions: Sequence[Position]) -> Probs:
        return self.evaluate_boards(boards_of(positions))

    def play_equities(self, plays: Sequence[Play], rules: Rules | None = None) -> npt.NDArray[np.float64]:
        """0-ply cubeless equity of each play for the player who makes it."""
        results = boards_of([p.position for p in plays])
        parents = list(dict.fromkeys(p.start for p in plays))
        where = {start: i for i, start in enumerate(parents)}
        index = np.fromiter((where[p.start] for p in plays), dtype=np.intp, count=len(plays))
        ev = self.for_rules(rules) if rules is not None else self
        after = ev.evaluate_plays(boards_of(parents), index, swap_boards(results))  # the opponent is on roll
        result: npt.NDArray[np.float64] = equity(flip(after), rules)
        return result

    def best_play(self, position: Position, dice: tuple[int, int], rules: Rules | None = None) -> Play:
        """The play with the highest 0-ply equity (first of equals, in generator order)."""
        rules = rules or Rules.international()
        plays = rules.legal_plays(position, dice)
        if len(plays) == 1:
            return plays[0]
        return plays[int(np.argmax(self.play_equities(plays, rules)))]


NET_NAMES: tuple[str, ...] = ("contact", "crashed", "race")
"""The nets a model file may hold, by their keys in it; ``crashed`` is optional."""


@dataclass(frozen=True)
class ModelInfo:
    """What a model file says about itself; ``nets`` names the nets it holds (:data:`NET_NAMES`),
    ``variants`` the rule sets it has nets of their own for (:attr:`Rules.name`), ``name`` the file's
    stem (``pulvezar-v4``) when it was loaded from or saved to one."""

    encoding_version: int
    run: dict[str, Any]
    sha256: str
    nets: tuple[str, ...] = ("contact", "race")
    variants: tuple[str, ...] = ()
    name: str | None = None
    race_table_points: int = 6


class _CWeights:
    """A :class:`ValueNet`'s parameters as the C forward pass takes them: ``layers``, per hidden
    layer its weight transposed (inputs, width) and its bias, and the head's weight (5, width)
    and bias, as float32 bytes; with the parameters' versions they were copied at (training
    changes them in place)."""

    def __init__(self, net: ValueNet) -> None:
        params = list(net.parameters())
        self._params = [weakref.ref(p) for p in params]
        self._versions = [p._version for p in params]
        import torch

        def f32(t: torch.Tensor, transpose: bool = False) -> bytes:
            a = t.detach().cpu().numpy()
            return np.ascontiguousarray(a.T if transpose else a, dtype=np.float32).tobytes()

        linear = [m for m in net.body if isinstance(m, torch.nn.Linear)]
        assert len(linear) == net.layers
        self.layers = [(f32(m.weight, transpose=True), f32(m.bias)) for m in linear]
        self.head_w, self.head_b = f32(net.head.weight), f32(net.head.bias)

    def current(self, net: ValueNet) -> bool:
        """Whether these are still ``net``'s parameters, unchanged (an in-place change bumps a
        tensor's version)."""
        params = list(net.parameters())
        return len(params) == len(self._params) and all(
            r() is p and p._version == v for r, p, v in zip(self._params, params, self._versions, strict=True)
        )


class NetEvaluator(EvaluatorBase):
    """Contact and race nets, an optional crashed net, exact bear-off endgames and races, exact
    finished games.

    ``crashed_net``, when given, values the contact positions with a crashed side (``FLAG_CRASHED``);
    without it the contact net does, as it did before models had a third net.  All nets take the
    inputs of one encoding version.

    On the CPU the nets run in C: plain nets (ReLU, equal widths) in float
    (:mod:`pulvezar.eval._forward`: the encoding and a sparse forward pass, a board's value
    independent of its batch; every encoding version, up to ``_forward.MAX_LAYERS`` hidden layers),
    or in fixed point on the accumulator kernel (:mod:`pulvezar.eval.quantised`), where
    :meth:`evaluate_plays` updates each play's first layer from its parent's: by default the nets
    the float kernel does not run (clipped ReLU, unequal widths), and every net with
    ``quantised=True`` (``False``: none).  On other devices they run in PyTorch; ``c_forward =
    False`` forces PyTorch for plain nets.  The float kernel agrees with PyTorch to float32
    rounding, the quantised one within the bounds its tests hold.

    ``variants`` maps a rule set's name (:attr:`Rules.name`, a Tavla one) to nets of its own that
    replace some of the base nets (the rest are shared) in the evaluator :meth:`for_rules` gives for it.
    """

    c_forward: bool = True

    def __init__(
        self,
        contact_net: ValueNet,
        race_net: ValueNet,
        bearoff: OneSidedBearoff | None = None,
        device: str | torch.device | None = None,
        info: ModelInfo | None = None,
        encoding_version: int = ENCODING_VERSION,
        two_sided: TwoSidedBearoff | None = None,
        *,
        crashed_net: ValueNet | None = None,
        quantised: bool | None = None,
        variants: dict[str, dict[str, ValueNet]] | None = None,
        race_table_points: int = 6,
    ) -> None:
        features = FEATURES_BY_VERSION[encoding_version]
        variants = variants or {}
        extra = [n for v in variants.values() for n in v.values()]
        for net in (contact_net, race_net, crashed_net, *extra):
            if net is not None and net.features != features:
                raise ValueError(f"the nets do not take encoding v{encoding_version}'s inputs")
        known = {r.name for r in variant_rulesets()}
        for name, vnets in variants.items():
            if name not in known:
                raise ValueError(
                    f"variant nets for {name!r}: not a Tavla rule set ({', '.join(sorted(known))})"
                )
            allowed = {"contact", "race"} | ({"crashed"} if crashed_net is not None else set())
            if not vnets or not set(vnets) <= allowed:
                raise ValueError(
                    f"variant {name}: nets {sorted(vnets)} not among the model's {sorted(allowed)}"
                )
        import torch

        if encoding_version >= 4:
            ensure_race_tables()  # the C encoder's bear-off tables
        self.encoding_version = encoding_version
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.contact_net = contact_net.to(self.device).eval()
        self.race_net = race_net.to(self.device).eval()
        self.crashed_net = crashed_net.to(self.device).eval() if crashed_net is not None else None
        self.races = BearoffRaces(bearoff or OneSidedBearoff.default())
        self.two_sided = two_sided or TwoSidedBearoff.default()
        #: races beyond the home boards valued by a one-sided table (None: by the race net)
        self.race_table = RaceTable.cached(race_table_points) if race_table_points != 6 else None
        self.info = info
        nets = [n for n in (contact_net, race_net, crashed_net) if n is not None]
        self.quantised = any(not n.uniform for n in nets) if quantised is None else quantised
        self._quantised_arg = quantised
        self._plain_in_float = quantised is None  # by default plain nets stay on the float kernel
        self.variants = {
            name: {k: n.to(self.device).eval() for k, n in vnets.items()} for name, vnets in variants.items()
        }
        self.rules_name: str | None = None  # the rule set whose nets these are (None: the base nets)
        self._base: NetEvaluator | None = None
        self._children: dict[str, NetEvaluator] = {}

    def for_rules(self, rules: Rules) -> NetEvaluator:
        """The evaluator for games under ``rules``: this model's nets of that rule set in place of the
        base nets where it has them (:attr:`variants`; made once, sharing the rest), else the base."""
        base = self._base if self._base is not None else self
        vnets = base.variants.get(rules.name)
        if vnets is None:
            return base
        child = base._children.get(rules.name)
        if child is None:
            child = copy.copy(base)  # shares the bear-off tables, the info and the kernels' caches
            for name, net in vnets.items():
                setattr(child, f"{name}_net", net)
            nets = [n for n in (child.contact_net, child.race_net, child.crashed_net) if n is not None]
            if base._quantised_arg is None:
                child.quantised = any(not n.uniform for n in nets)
            child.rules_name = rules.name
            child._base = base
            base._children[rules.name] = child
        return child

    @property
    def race_table_points(self) -> int:
        """Races within this many points are valued from a table (6: the home-board table only)."""
        return self.race_table.points if self.race_table is not None else 6

    @property
    def nets(self) -> dict[str, ValueNet]:
        """The model's nets by their names in a model file (:data:`NET_NAMES`): contact, crashed
        when there is one, race."""
        nets = {"contact": self.contact_net}
        if self.crashed_net is not None:
            nets["crashed"] = self.crashed_net
        nets["race"] = self.race_net
        return nets

    def nets_sha256(self, rules: Rules | None = None) -> str:
        """A digest of the nets that evaluate games under ``rules`` (None: the base nets), their weights
        and encoding: two models with the same digest value every position of that rule set alike, so
        work made with one of them (a book, a rollout) is the other's too."""
        digest = hashlib.sha256(f"encoding {self.encoding_version}\n".encode())
        if self.race_table is not None:  # the digests of models without one stay as they were
            digest.update(f"race table {self.race_table.points}\n".encode())
        ev = self if rules is None else self.for_rules(rules)
        for name, net in ev.nets.items():
            digest.update(f"{name} {json.dumps(net.config(), sort_keys=True)}\n".encode())
            for key, tensor in sorted(net.state_dict().items()):
                digest.update(f"{name}.{key} {tuple(tensor.shape)}\n".encode())
                digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
        return digest.hexdigest()

    def net_probabilities(self, net: ValueNet, boards: Boards) -> Probs:
        """The raw net's output (no class routing)."""
        if len(boards) == 0:
            return np.zeros((0, 5))
        q = self._quantised_net(net)
        if q is not None:
            return q.evaluate(boards)
        weights = self._c_weights(net)
        if weights is not None:
            raw = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50).tobytes()
            out = np.empty((len(boards), 5))
            _forward.forward(raw, self.encoding_version, weights.layers, weights.head_w, weights.head_b, out)
            return out
        import torch

        with torch.no_grad():
            x = torch.from_numpy(encode(boards, self.encoding_version)).to(self.device)
            return np.asarray(net(x).cpu().numpy(), dtype=np.float64)

    def _c_weights(self, net: ValueNet) -> _CWeights | None:
        """The C forward pass's weights of ``net``, or None where PyTorch must run it."""
        if not self.c_forward or self.device.type != "cpu":
            return None
        if net.activation != "relu" or net.late:
            return None  # the float C kernel knows ReLU nets whose inputs all enter the first layer
        if not 1 <= net.layers <= _forward.MAX_LAYERS or max(net.widths) > _forward.MAX_WIDTH:
            return None
        version = self.encoding_version
        if version not in (1, 2, 3, 4) or net.features != FEATURES_BY_VERSION[version]:
            return None  # the C encoding knows versions 1 to 4
        cache: dict[int, _CWeights] = self.__dict__.setdefault("_c_cache", {})
        w = cache.get(id(net))
        if w is None or not w.current(net):
            w = cache[id(net)] = _CWeights(net)
        return w

    def _quantised_net(self, net: ValueNet) -> QuantisedNet | None:
        """``net`` quantised for the accumulator kernel when this evaluator runs it there, else None."""
        if not self.quantised or self.device.type != "cpu":
            return None
        if net.uniform and self._plain_in_float and self._c_weights(net) is not None:
            return None
        from pulvezar.eval.quantised import QuantisedNet

        cache: dict[int, tuple[ValueNet, tuple[int, ...], QuantisedNet]] = self.__dict__.setdefault(
            "_q_cache", {}
        )
        entry = cache.get(id(net))
        stamp = net.stamp()
        if entry is None or entry[0] is not net or entry[1] != stamp:
            entry = cache[id(net)] = (net, stamp, QuantisedNet.from_value_net(net, self.encoding_version))
        return entry[2]

    def evaluate_boards(self, boards: Boards) -> Probs:
        boards = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
        return self._route(boards, lambda net, mask: self.net_probabilities(net, boards[mask]))

    def evaluate_plays(self, parents: Boards, index: npt.NDArray[np.intp], after: Boards) -> Probs:
        """:meth:`evaluate_boards` of ``after``; on the quantised kernel each play's first layer is
        updated from its parent's (the same bits)."""
        after = np.ascontiguousarray(after, dtype=np.uint8).reshape(-1, 50)

        def run(net: ValueNet, mask: npt.NDArray[np.bool_]) -> Probs:
            q = self._quantised_net(net)
            if q is None:
                return self.net_probabilities(net, after[mask])
            return q.children(parents, np.asarray(index)[mask], after[mask])

        return self._route(after, run)

    def _route(self, boards: Boards, run: Callable[[ValueNet, npt.NDArray[np.bool_]], Probs]) -> Probs:
        """Each board's probabilities by its class: exact where the game is over or a bear-off
        database holds it, else ``run(net, mask)`` for the boards of each net."""
        two_sided = self.two_sided
        flags = board_flags(boards, two_sided.points, two_sided.max_checkers)
        done, out = _terminal(boards, flags)
        todo = ~done
        # small home-board endgames: exact P(win) with both sides playing to win; with
        # at most 14 checkers a side nobody can be gammoned
        two = todo & ((flags & _forward.FLAG_TWO) != 0)
        if two.any():
            out[two, 0] = two_sided.win_probabilities(boards[two])
        todo &= ~two
        bo = todo & ((flags & _forward.FLAG_HOME) != 0)
        if bo.any():
            out[bo] = self.races.probabilities(boards[bo])
        if self.race_table is not None:
            table = todo & ~bo & ((flags & _forward.FLAG_CONTACT) == 0)
            table[table] = self.race_table.covers(boards[table])
            if table.any():
                out[table] = self.race_table.probabilities(boards[table])
            bo |= table
        rest = todo & ~bo
        is_contact = (flags & _forward.FLAG_CONTACT) != 0
        routes = [(rest & is_contact, self.contact_net), (rest & ~is_contact, self.race_net)]
        if self.crashed_net is not None:
            is_crashed = (flags & _forward.FLAG_CRASHED) != 0  # contact positions only
            routes[0] = (rest & is_contact & ~is_crashed, self.contact_net)
            routes.append((rest & is_crashed, self.crashed_net))
        for mask, net in routes:
            if mask.any():
                out[mask] = run(net, mask)
        if rest.any():  # a side that has borne off a checker cannot be gammoned: no net may say otherwise
            out[rest & ((flags & _forward.FLAG_MINE_OFF) != 0), 3:5] = 0.0
            out[rest & ((flags & _forward.FLAG_THEIRS_OFF) != 0), 1:3] = 0.0
        return out

    # ---- model files -------------------------------------------------------
    def save(self, path: str | Path, run: dict[str, Any]) -> ModelInfo:
        """Write the nets (contact, race and a crashed one when there is one, and the rule sets' own
        nets when there are some) with their configuration and metadata; returns the metadata."""
        if self._base is not None:
            raise ValueError(f"this is the model's evaluator for {self.rules_name}: save the base model")
        state: dict[str, Any] = {
            "encoding_version": self.encoding_version,
            "contact": {"config": self.contact_net.config(), "state": self.contact_net.state_dict()},
            "race": {"config": self.race_net.config(), "state": self.race_net.state_dict()},
            "run": run,
        }
        if self.crashed_net is not None:  # a two-net model's file stays as it always was
            state["crashed"] = {"config": self.crashed_net.config(), "state": self.crashed_net.state_dict()}
        points = self.race_table_points
        if points != 6:  # and of models without a race table
            state["race_table_points"] = points
        if self.variants:  # so do the files of models without them
            state["variants"] = {
                name: {k: {"config": n.config(), "state": n.state_dict()} for k, n in vnets.items()}
                for name, vnets in sorted(self.variants.items())
            }
        names = tuple(self.nets)
        variant_names = tuple(sorted(self.variants))
        import torch

        buf = io.BytesIO()
        torch.save(state, buf)
        data = buf.getvalue()
        digest = hashlib.sha256(data).hexdigest()
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        meta: dict[str, Any] = {
            "encoding_version": self.encoding_version, "nets": list(names), "run": run, "sha256": digest
        }  # fmt: skip
        if variant_names:
            meta["variants"] = list(variant_names)
        if points != 6:
            meta["race_table_points"] = points
        path.with_suffix(".json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
        return ModelInfo(self.encoding_version, run, digest, names, variant_names, path.stem, points)

    @classmethod
    def load(
        cls, path: str | Path, device: str | torch.device | None = None, quantised: bool | None = None
    ) -> NetEvaluator:
        """Load a model file, checking its checksum and encoding version; its crashed net when it has
        one (files without one load as they always did); ``quantised`` as for the constructor."""
        path = Path(path)
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        meta_path = path.with_suffix(".json")
        if meta_path.exists():
            meta = json.loads(meta_path.read_text())
            if meta.get("sha256") != digest:
                raise ValueError(f"{path.name}: checksum does not match {meta_path.name}")
        import torch

        from pulvezar.eval.nets import ValueNet

        state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
        version = state["encoding_version"]
        if version not in FEATURES_BY_VERSION:
            raise ValueError(f"{path.name} was trained on encoding v{version}, which this pulvezar lacks")

        def net_of(entry: dict[str, Any]) -> ValueNet:
            net = ValueNet(**entry["config"])
            net.load_state_dict(entry["state"])
            return net

        nets = {name: net_of(state[name]) for name in NET_NAMES if name in state or name != "crashed"}
        variants = {
            name: {k: net_of(entry) for k, entry in vnets.items()}
            for name, vnets in state.get("variants", {}).items()
        }
        points = int(state.get("race_table_points", 6))
        names = tuple(sorted(variants))
        info = ModelInfo(version, state["run"], digest, tuple(nets), names, path.stem, points)
        return cls(
            nets["contact"],
            nets["race"],
            device=device,
            info=info,
            encoding_version=version,
            crashed_net=nets.get("crashed"),
            quantised=quantised,
            variants=variants,
            race_table_points=points,
        )


def exact_races(evaluator: Evaluator, boards: Boards) -> npt.NDArray[np.bool_]:
    """The races among ``boards`` that ``evaluator`` values from a bear-off table, not a net: both sides
    home (:meth:`BearoffRaces.covers`) or within its ``race_table_points`` (an evaluator without that
    attribute: 6, the home boards). Rollouts end a trial there and search looks no deeper (the value is the
    table's either way); wrappers (a cache, a service's client) pass the attribute on."""
    covered = BearoffRaces.covers(boards)
    points = int(getattr(evaluator, "race_table_points", 6))
    if points > 6:
        covered = covered | within_points(boards, points)
    return covered


def variant_rulesets() -> tuple[Rules, ...]:
    """The rule sets a model may have nets of their own for: Tavla's four."""
    return tuple(Rules.tavla(h, m) for h in (False, True) for m in (False, True))


_DEFAULT: NetEvaluator | None = None


def default_model_path() -> Path:
    """The model file :func:`default_evaluator` loads: ``PULVEZAR_MODEL`` when set, else the shipped net.

    The variable lets a candidate net run through everything that uses the default (the test suite's
    opening and cube checks, the services) without replacing the shipped file.
    """
    override = os.environ.get("PULVEZAR_MODEL")
    return Path(override) if override else DEFAULT_MODEL


_SCREEN: NetEvaluator | None = None


def screen_evaluator() -> NetEvaluator:
    """The shipped screening net (:data:`SCREEN_MODEL`: raw-board inputs, 64 hidden units, about ten
    times cheaper than the default net), loaded once per process."""
    global _SCREEN
    if _SCREEN is None:
        _SCREEN = NetEvaluator.load(SCREEN_MODEL)
    return _SCREEN


def default_evaluator() -> NetEvaluator:
    """The shipped net, loaded once per process offline from the repository (:func:`default_model_path`)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = NetEvaluator.load(default_model_path())
    return _DEFAULT
