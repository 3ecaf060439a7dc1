"""Quantised nets with an incrementally updated first layer (the C kernel :mod:`pulvezar.eval._qnet`).

A :class:`~pulvezar.eval.nets.ValueNet` becomes a :class:`QuantisedNet` with these scales
(documented here and recorded in :attr:`QuantisedNet.scales`):

- first layer, *slot part*: one int32 row per (side, slot, checker count) at ``2**ACC_BITS`` (16
  bits) per unit of pre-activation, the rows of a board's occupied slots summed with the bias (every
  encoding except its dense tail is such a sum, see :func:`slot_encoding`); a play's sum is its
  parent's plus the rows of the slots it changed;
- first layer, *dense tail*: the contact flag's int32 row, and the hand-made features and terms of
  encodings v2-v4 with float32 weights at the same scale, summed per unit in input order and rounded;
- activations: int16 at ``2**act_bits`` per unit, ReLU clamped at ``cap`` (twice the largest
  activation on sample positions, rounded up to a power of two, at most 32767);
- later layers and the head: int16 weights at ``2**w_bits`` per output unit (the finest that holds
  the unit's largest weight, at most ``2**14``, and at which no sum of the layer can leave int32
  with every input at its cap, where that costs no unit more than ``W_BITS_GIVEN`` bits), int32
  sums where no sum can overflow, else int64 sums; a unit's sum divided by ``2**w_bits``
  is its next activation, the head's divided by ``2**(act_bits + w_bits)`` its logits.

The sums are integers, so the AVX2 kernel and the portable one give the same bits, and a play's
sums updated from its parent equal its sums from scratch.

>>> import numpy as np
>>> from pulvezar import Position
>>> from pulvezar.eval.evaluator import boards_of, default_evaluator
>>> net = default_evaluator().contact_net
>>> q = QuantisedNet.from_value_net(net, 4)
>>> b = boards_of([Position.start()])
>>> float(abs(q.evaluate(b) - default_evaluator().net_probabilities(net, b)).max()) < 1e-3
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from pulvezar.eval import _qnet
from pulvezar.eval.encoding import FEATURES_BY_VERSION, encode, ensure_race_tables

if TYPE_CHECKING:
    from pulvezar.eval.nets import ValueNet

Boards = npt.NDArray[np.uint8]
Probs = npt.NDArray[np.float64]

SLOTS = _qnet.SLOTS  # per side: points 1..24 and the bar
COUNTS = _qnet.COUNTS  # checkers on a slot: 0..15
ACC_BITS = 16
W_BITS_GIVEN = 1  # bits of a later layer's weight precision given up at most for int32 sums (else int64)
DENSE_FROM = _qnet.BASE - 1  # the encodings' dense tail: the contact flag, then v2-v4's additions


def _pad(n: int, unit: int = 16) -> int:
    return (n + unit - 1) // unit * unit


def slot_encoding(version: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The slot part of encoding ``version`` (its inputs before the dense tail) as a sum over slots:
    ``(const, g)`` with ``g`` of shape ``(2, SLOTS, COUNTS, DENSE_FROM)``, so that a board's inputs
    ``[:DENSE_FROM]`` are ``const + sum(g[side, slot, count])`` over its 50 slots (to float32
    rounding), ``g[..., 0, :]`` zero."""
    empty = np.zeros((1, 50), dtype=np.uint8)
    boards = np.zeros((2, SLOTS, COUNTS, 50), dtype=np.uint8)
    for side in range(2):
        for slot in range(SLOTS):
            boards[side, slot, :, 25 * side + slot] = np.arange(COUNTS)
    const = encode(empty, version)[0, :DENSE_FROM].astype(np.float64)
    enc = encode(boards.reshape(-1, 50), version)[:, :DENSE_FROM].astype(np.float64)
    g = (enc - const).reshape(2, SLOTS, COUNTS, DENSE_FROM)
    return const.astype(np.float32), g.astype(np.float32)


def used_version(w1: npt.NDArray[np.float64], version: int) -> int:
    """The lowest encoding version whose inputs carry every nonzero weight of the first layer ``w1``
    (the encodings are prefixes of one another): a net widened from v2 to v4 with zero weights on the
    new inputs runs at v2's cost, its values unchanged."""
    for v in sorted(FEATURES_BY_VERSION):
        if v <= version and not w1[:, FEATURES_BY_VERSION[v] :].any():
            return v
    return version


@dataclass(frozen=True)
class Scales:
    """The fixed-point scales of a quantised net (bits: a value ``x`` is stored as ``x * 2**bits``)."""

    acc_bits: int
    act_bits: int
    caps: tuple[int, ...]  # activation caps per hidden layer, in activation units
    w_bits: tuple[tuple[int, ...], ...]  # per later layer (the head last), per output unit


class QuantisedNet:
    """A :class:`ValueNet` in fixed point for :mod:`pulvezar.eval._qnet` (see the module docstring)."""

    def __init__(self, capsule: Any, width: int, version: int, scales: Scales) -> None:
        self._net = capsule
        self.width = width
        self.version = version
        self.scales = scales

    @classmethod
    def from_value_net(
        cls, net: ValueNet, version: int, *, act_bits: int | None = None, sample: Boards | None = None
    ) -> QuantisedNet:
        """Quantise ``net`` (trained on encoding ``version``).  ``act_bits``: 9 by default for ReLU nets,
        12 for clipped-ReLU ones (at most 14); ``sample`` boards set a ReLU net's activation caps (without
        them 32767)."""
        import torch

        if act_bits is None:
            act_bits = 12 if net.activation == "crelu" else 9
        if not 1 <= act_bits <= 14:
            raise ValueError("act_bits is 1 to 14")
        if version not in FEATURES_BY_VERSION or net.features != FEATURES_BY_VERSION[version]:
            raise ValueError(f"the net does not take encoding v{version}'s inputs")
        linear = [m for m in net.body if isinstance(m, torch.nn.Linear)] + [net.head]
        ws = [m.weight.detach().double().numpy() for m in linear]
        bs = [m.bias.detach().double().numpy() for m in linear]
        if not getattr(net, "late", False):  # inputs with zero weights are not computed at all
            version = used_version(ws[0], version)
            ws[0] = ws[0][:, : FEATURES_BY_VERSION[version]]
        if version >= 4:
            ensure_race_tables()
            _set_bearoff()
        h1 = ws[0].shape[0]
        h1p = _pad(h1, 64)  # the kernel's first layer runs in blocks of 64 units
        acc_scale = 2.0**ACC_BITS
        const, g = slot_encoding(version)
        w1 = np.zeros((h1p, ws[0].shape[1]))
        w1[:h1] = ws[0]
        b1 = np.zeros(h1p)
        b1[:h1] = bs[0]
        rows = np.rint(acc_scale * (g.astype(np.float64) @ w1[:, :DENSE_FROM].T))
        bias1 = np.rint(acc_scale * (b1 + w1[:, :DENSE_FROM] @ const.astype(np.float64)))
        contact = np.rint(acc_scale * w1[:, DENSE_FROM])
        late = getattr(net, "late", False)
        wx = (acc_scale * w1[:, DENSE_FROM + 1 :].T).astype(np.float32)  # empty for a net with late inputs
        tail = np.zeros((0, 0))
        if late:  # the second layer's inputs beyond the first layer's outputs: the hand-made ones
            tail, ws[1] = ws[1][:, h1:], ws[1][:, :h1]
        caps = _caps(net, version, sample, act_bits)
        shift1 = ACC_BITS - act_bits
        layers: list[tuple[bytes, bytes, bytes, int, bool]] = []
        w_bits: list[tuple[int, ...]] = []
        width = h1p
        for i, (w, b) in enumerate(zip(ws[1:], bs[1:], strict=True)):
            head = i == len(ws) - 2
            wq, bq, bits = _quantise_rows(w, b, act_bits, caps[i])
            w_bits.append(tuple(int(x) for x in bits))
            wpad = np.zeros((w.shape[0], width), dtype=np.int16)
            wpad[:, : w.shape[1]] = wq
            shifts = (act_bits + bits) if head else bits
            cap = 0 if head else caps[i + 1]
            wide = bool((caps[i] * np.abs(wq.astype(np.int64)).sum(axis=1) + np.abs(bq)).max() >= 2**31 - 1)
            layers.append((wpad.tobytes(), bq.tobytes(), shifts.astype(np.uint8).tobytes(), cap, wide))
            width = _pad(w.shape[0])
            if i == 0 and late:  # each output's tail weights at its sum's scale, [input][output]
                wl = (tail * np.exp2(act_bits + bits)[:, None]).T.astype(np.float32)
        capsule = _qnet.make(
            h1,
            rows.astype(np.int32).tobytes(),
            bias1.astype(np.int32).tobytes(),
            contact.astype(np.int32).tobytes(),
            version,
            np.ascontiguousarray(wx).tobytes(),
            shift1,
            caps[0],
            layers,
            *([np.ascontiguousarray(wl).tobytes()] if late else []),
        )
        return cls(capsule, h1, version, Scales(ACC_BITS, act_bits, tuple(caps), tuple(w_bits)))

    def evaluate(self, boards: Boards) -> Probs:
        """``(N, 50)`` boards (the player on roll first) -> ``(N, 5)`` probabilities, from scratch."""
        raw = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
        out = np.empty((len(raw), 5))
        _qnet.evaluate(self._net, raw.tobytes(), out)
        return out

    def children(self, parents: Boards, index: npt.NDArray[np.integer[Any]], boards: Boards) -> Probs:
        """The probabilities of ``boards`` (as :meth:`evaluate` gives them, bit for bit), each a play of
        the side on roll in ``parents[index[i]]`` seen by the opponent, who is on roll next: the first
        layer updated from the parent's.  Plays of one parent should be consecutive (each run of one
        parent computes its sum once)."""
        raw = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
        out = np.empty((len(raw), 5))
        _qnet.children(self._net, _raw(parents), _index(index), raw.tobytes(), out)
        return out

    def sums(self, boards: Boards) -> npt.NDArray[np.int32]:
        """The first layer's slot sums (bias included) of each board, from scratch."""
        raw = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
        return np.frombuffer(_qnet.sums(self._net, raw.tobytes()), dtype=np.int32).reshape(len(raw), -1)

    def child_sums(
        self, parents: Boards, index: npt.NDArray[np.integer[Any]], boards: Boards
    ) -> npt.NDArray[np.int32]:
        """The slot sums of ``boards`` (as :meth:`children` takes them), updated from their parents'."""
        raw = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
        data = _qnet.child_sums(self._net, _raw(parents), _index(index), raw.tobytes())
        return np.frombuffer(data, dtype=np.int32).reshape(len(raw), -1)


def _raw(boards: Boards | bytes) -> bytes:
    if isinstance(boards, bytes):
        return boards
    return np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50).tobytes()


def _index(index: npt.NDArray[np.integer[Any]]) -> bytes:
    return np.ascontiguousarray(index, dtype=np.int32).tobytes()


def _quantise_rows(
    w: npt.NDArray[np.float64], b: npt.NDArray[np.float64], act_bits: int, in_cap: int = 0
) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int32], npt.NDArray[np.int64]]:
    """A layer's weights in int16 and biases in int32, each output unit (row) at the finest scale
    ``2**bits`` (at most 2**14) at which its weights fit int16 and its bias int32; with ``in_cap``
    (its inputs' activation cap), at most the scale at which the unit's sum fits int32 whatever its
    inputs (the kernel's fast path), where no unit gives up more than :data:`W_BITS_GIVEN` bits for it
    (else the kernel sums the layer in int64)."""
    top = np.maximum(np.abs(w).max(axis=1), 1e-12)
    bits = np.minimum(14, np.floor(np.log2(32767.0 / top))).astype(np.int64)
    bits = np.minimum(bits, np.floor(np.log2((2**31 - 1) / np.maximum(np.abs(b), 1e-12))) - act_bits).astype(
        np.int64
    )
    if in_cap:  # cap * sum|rint(w * 2**bits)| + |bias| < 2**31 - 1, rounding included
        worst = in_cap * np.abs(w).sum(axis=1) + np.abs(b) * 2.0**act_bits
        room = (2.0**31 - 2 - in_cap * w.shape[1]) / worst
        fit = np.floor(np.log2(np.maximum(room, 1e-12))).astype(np.int64)
        if (fit >= bits - W_BITS_GIVEN).all():
            bits = np.minimum(bits, fit)
    wq = np.rint(w * np.exp2(bits)[:, None])
    bq = np.rint(b * np.exp2(act_bits + bits))
    return wq.astype(np.int16), bq.astype(np.int32), bits


def _caps(net: ValueNet, version: int, sample: Boards | None, act_bits: int) -> list[int]:
    """Activation caps per hidden layer (activation units): twice the largest activation on
    ``sample`` rounded up to a power of two, at most 32767; 32767 without a sample."""
    import torch

    hidden = [m for m in net.body if isinstance(m, torch.nn.Linear)]
    if net.activation == "crelu":  # activations in [0, 1]
        return [1 << act_bits] * len(hidden)
    if sample is None or len(sample) == 0:
        return [32767] * len(hidden)
    x = torch.from_numpy(encode(sample, version))
    caps = []
    with torch.no_grad():
        for m in hidden:
            x = torch.relu(m(x))
            top = float(x.max()) * 2.0 * 2.0**act_bits
            caps.append(int(min(32767, 2 ** math.ceil(math.log2(max(top, 1.0))))))
    return caps


_BEAROFF_SET = False


def _set_bearoff() -> None:
    """Give the kernel the one-sided bear-off database (encoding v4's race terms), once."""
    global _BEAROFF_SET
    if _BEAROFF_SET:
        return
    from pulvezar.eval.bearoff import OneSidedBearoff

    db = OneSidedBearoff.default()
    _qnet.set_bearoff(db.dense().tobytes(), db.dense(first_off=True).tobytes(), db.positions, db.slots)
    _BEAROFF_SET = True
