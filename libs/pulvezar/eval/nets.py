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

from pulvezar.eval.encoding import FEATURES

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
    after each, or ``activation="crelu"`` (:class:`ClippedReLU`).
    """

    def __init__(
        self,
        hidden: int = 128,
        layers: int = 1,
        features: int = FEATURES,
        widths: list[int] | tuple[int, ...] | None = None,
        activation: str = "relu",
    ) -> None:
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation is one of {ACTIVATIONS}")
        sizes = list(widths) if widths else [hidden] * layers
        if not sizes or min(sizes) < 1:
            raise ValueError("a net has at least one hidden layer of at least one unit")
        self.widths = tuple(sizes)
        self.hidden = sizes[0]
        self.layers = len(sizes)
        self.features = features
        self.activation = activation
        blocks: list[nn.Module] = []
        width = features
        for size in sizes:
            blocks += [nn.Linear(width, size), ClippedReLU() if activation == "crelu" else nn.ReLU()]
            width = size
        self.body = nn.Sequential(*blocks)
        self.head = nn.Linear(width, OUTPUTS)
        self._own = list(self.parameters())

    def stamp(self) -> tuple[int, ...]:
        """Changes whenever a parameter does (in place, as training and ``load_state_dict`` change
        them): the parameters' versions, cheaply, for caches of copies of the weights."""
        return tuple(p._version for p in self._own)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        c = torch.sigmoid(self.head(self.body(x)))
        win = c[:, 0]
        wg = win * c[:, 1]
        wbg = wg * c[:, 2]
        lg = (1.0 - win) * c[:, 3]
        lbg = lg * c[:, 4]
        return torch.stack([win, wg, wbg, lg, lbg], dim=1)

    @property
    def uniform(self) -> bool:
        """Whether this is a plain net: ReLU, every hidden layer as wide (what the float C kernel runs)."""
        return self.activation == "relu" and len(set(self.widths)) == 1

    def config(self) -> dict[str, Any]:
        """Keyword arguments that rebuild this net (a plain net's as they always were)."""
        cfg: dict[str, Any] = {"hidden": self.hidden, "layers": self.layers, "features": self.features}
        if not self.uniform:
            cfg["widths"] = list(self.widths)
            cfg["activation"] = self.activation
        return cfg


def equity(probs: torch.Tensor) -> torch.Tensor:
    """Cubeless equity (points per game for the player on roll) of ``(N, 5)`` probabilities."""
    return 2.0 * probs[:, 0] - 1.0 + probs[:, 1] - probs[:, 3] + probs[:, 2] - probs[:, 4]
