"""pulvezar's neural nets (PyTorch): one class per position class, five consistent outputs.

A net maps encoded positions to five cumulative probabilities for the player
on roll: win, win gammon, win backgammon, lose gammon, lose backgammon.  The
last layer predicts conditional probabilities (gammon given a win, backgammon
given a gammon, ...) whose products give the cumulative ones, so
``P(wbg) <= P(wg) <= P(w)`` and ``P(lbg) <= P(lg) <= 1 - P(w)`` hold by
construction.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from pulvezar.eval.encoding import FEATURES, FEATURES_BY_VERSION

LATE_FROM = FEATURES_BY_VERSION[1]
"""Where the hand-made inputs begin: encoding v1 (the board, the pips, the contact flag) comes first."""

OUTPUTS = 5


ACTIVATIONS = ("relu", "crelu")


class ClippedReLU(nn.Module):
    """``min(max(x, 0), 1)``: the activation of nets meant for the quantised kernel, whose
    activations then fit a fixed scale (:mod:`pulvezar.eval.quantised`)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(x, 0.0, 1.0)


class ValueNet(nn.Module):
    """An MLP from the encoding to the five cumulative probabilities.

    ``layers`` hidden layers of ``hidden`` units each, or of the given ``widths`` (the first layer's
    first: a wide first layer and narrow later ones suit the quantised kernel's accumulator); ReLU
    after each, or ``activation="crelu"`` (:class:`ClippedReLU`).  With ``late``, the encoding's
    hand-made inputs (from :data:`LATE_FROM` on: encodings v2-v4's features and terms) skip the first
    layer and join the second beside the first layer's outputs: the kernel then pays for them per
    unit of the narrow second layer instead of the wide first one.
    """

    def __init__(
        self,
        hidden: int = 128,
        layers: int = 1,
        features: int = FEATURES,
        widths: list[int] | tuple[int, ...] | None = None,
        activation: str = "relu",
        late: bool = False,
    ) -> None:
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation is one of {ACTIVATIONS}")
        sizes = list(widths) if widths else [hidden] * layers
        if not sizes or min(sizes) < 1:
            raise ValueError("a net has at least one hidden layer of at least one unit")
        if late and (len(sizes) < 2 or features <= LATE_FROM):
            raise ValueError("late hand-made inputs need two hidden layers and an encoding that has them")
        self.late = late
        self.widths = tuple(sizes)
        self.hidden = sizes[0]
        self.layers = len(sizes)
        self.features = features
        self.activation = activation
        blocks: list[nn.Module] = []
        width = LATE_FROM if late else features
        for i, size in enumerate(sizes):
            blocks += [nn.Linear(width, size), ClippedReLU() if activation == "crelu" else nn.ReLU()]
            width = size + (features - LATE_FROM if late and i == 0 else 0)
        self.body = nn.Sequential(*blocks)
        self.head = nn.Linear(width, OUTPUTS)
        self._own = list(self.parameters())

    def stamp(self) -> tuple[int, ...]:
        """Changes whenever a parameter does (in place, as training and ``load_state_dict`` change
        them): the parameters' versions, cheaply, for caches of copies of the weights."""
        return tuple(p._version for p in self._own)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.late:
            h = self.body[1](self.body[0](x[:, :LATE_FROM]))
            h = self.body[2:](torch.cat([h, x[:, LATE_FROM:]], dim=1))
        else:
            h = self.body(x)
        c = torch.sigmoid(self.head(h))
        win = c[:, 0]
        wg = win * c[:, 1]
        wbg = wg * c[:, 2]
        lg = (1.0 - win) * c[:, 3]
        lbg = lg * c[:, 4]
        return torch.stack([win, wg, wbg, lg, lbg], dim=1)

    @property
    def uniform(self) -> bool:
        """Whether this is a plain net: ReLU, every hidden layer as wide (what the float C kernel runs)."""
        return self.activation == "relu" and len(set(self.widths)) == 1 and not self.late

    def config(self) -> dict[str, Any]:
        """Keyword arguments that rebuild this net (a plain net's as they always were)."""
        cfg: dict[str, Any] = {"hidden": self.hidden, "layers": self.layers, "features": self.features}
        if not self.uniform:
            cfg["widths"] = list(self.widths)
            cfg["activation"] = self.activation
        if self.late:
            cfg["late"] = True
        return cfg


def equity(probs: torch.Tensor) -> torch.Tensor:
    """Cubeless equity (points per game for the player on roll) of ``(N, 5)`` probabilities."""
    return 2.0 * probs[:, 0] - 1.0 + probs[:, 1] - probs[:, 3] + probs[:, 2] - probs[:, 4]
