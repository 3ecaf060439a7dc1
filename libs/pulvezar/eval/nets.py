"""pulvezar's neural nets (PyTorch): one class per position class, five consistent outputs.

A net maps encoded positions to five cumulative probabilities for the player
on roll: win, win gammon, win backgammon, lose gammon, lose backgammon.  The
last layer predicts conditional probabilities (gammon given a win, backgammon
given a gammon, ...) whose products give the cumulative ones, so
``P(wbg) <= P(wg) <= P(w)`` and ``P(lbg) <= P(lg) <= 1 - P(w)`` hold by
construction.
"""

from __future__ import annotations

import torch
from torch import nn

from pulvezar.eval.encoding import FEATURES

OUTPUTS = 5


class ValueNet(nn.Module):
    """An MLP from the encoding to the five cumulative probabilities."""

    def __init__(self, hidden: int = 128, layers: int = 1, features: int = FEATURES) -> None:
        super().__init__()
        self.hidden = hidden
        self.layers = layers
        self.features = features
        blocks: list[nn.Module] = []
        width = features
        for _ in range(layers):
            blocks += [nn.Linear(width, hidden), nn.ReLU()]
            width = hidden
        self.body = nn.Sequential(*blocks)
        self.head = nn.Linear(width, OUTPUTS)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        c = torch.sigmoid(self.head(self.body(x)))
        win = c[:, 0]
        wg = win * c[:, 1]
        wbg = wg * c[:, 2]
        lg = (1.0 - win) * c[:, 3]
        lbg = lg * c[:, 4]
        return torch.stack([win, wg, wbg, lg, lbg], dim=1)

    def config(self) -> dict[str, int]:
        return {"hidden": self.hidden, "layers": self.layers, "features": self.features}


def equity(probs: torch.Tensor) -> torch.Tensor:
    """Cubeless equity (points per game for the player on roll) of ``(N, 5)`` probabilities."""
    return 2.0 * probs[:, 0] - 1.0 + probs[:, 1] - probs[:, 3] + probs[:, 2] - probs[:, 4]
