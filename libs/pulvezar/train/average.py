"""Weight averaging of model files from one training run (stochastic weight averaging).

TD self-play moves the weights around a good region rather than into it;
the mean of the weights of several late snapshots of one run often plays
better than any one of them.  All files must share encoding and net shapes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from pulvezar.eval.evaluator import NetEvaluator


def average_models(paths: list[str | Path], out: str | Path, note: str = "") -> NetEvaluator:
    """Write the element-wise mean of the nets in ``paths`` to ``out``; returns the averaged evaluator."""
    if len(paths) < 2:
        raise ValueError("average at least two model files")
    models = [NetEvaluator.load(p, device="cpu") for p in paths]
    first = models[0]
    for p, m in zip(paths[1:], models[1:], strict=True):
        if m.encoding_version != first.encoding_version:
            raise ValueError(f"{p}: encoding v{m.encoding_version}, not v{first.encoding_version}")
        if list(m.nets) != list(first.nets):  # a crashed net in some files only
            raise ValueError(
                f"{p}: its nets ({', '.join(m.nets)}) are not {paths[0]}'s ({', '.join(first.nets)})"
            )
        for name, net in m.nets.items():
            if net.config() != first.nets[name].config():
                raise ValueError(f"{p}: its {name} net differs in shape from {paths[0]}'s")
    for name, net in first.nets.items():
        states = [m.nets[name].state_dict() for m in models]
        mean = {k: torch.stack([s[k].double() for s in states]).mean(0).float() for k in states[0]}
        net.load_state_dict(mean)
    sources: list[dict[str, Any]] = []
    for p, m in zip(paths, models, strict=True):
        run = m.info.run if m.info is not None else {}
        sources.append(
            {
                "file": Path(p).name,
                "sha256": m.info.sha256 if m.info else None,
                "games_done": run.get("games_done"),
            }
        )
    base = dict(first.info.run) if first.info is not None else {}
    games = [int(s["games_done"]) for s in sources if s["games_done"] is not None]
    run = {**base, "method": f"weight average of {len(paths)} snapshots", "averaged": sources}
    run["games_done"] = max(games) if games else None  # the last snapshot's
    if note:
        run["note"] = note
    first.info = first.save(out, run)
    return first
