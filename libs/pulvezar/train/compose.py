"""A model file made of nets from several fits: each net of the base model, or of the model named for it.

Fits that train one net each (``fit --train race``) can run side by side; this puts the best of
each into one model without training again::

    pulvezar train compose --base runs/e1/model.pt --net race=runs/e2/model.pt --out M.pt

A net of a lower encoding version than the base's is widened to it with zero weights on the newer
inputs (the encodings are prefixes of one another), so its values are unchanged and the quantised
kernel computes only the inputs it uses (:func:`pulvezar.eval.quantised.used_version`).

The file's run metadata is the base's, with ``composed`` naming the file (and its sha256) each net
came from and that net's own fit metadata (its teachers, positions and curve summary), so the model
card can say where each net learned.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pulvezar.eval.encoding import FEATURES_BY_VERSION
from pulvezar.eval.evaluator import NetEvaluator
from pulvezar.train.fit import widen


def compose_models(
    base: str | Path, nets: dict[str, str | Path], out: str | Path, note: str = ""
) -> NetEvaluator:
    """Write ``base`` with each net named in ``nets`` taken from that model file; returns the result."""
    first = NetEvaluator.load(base, device="cpu")
    chosen = dict(first.nets)
    sources: dict[str, Any] = {}
    for name, path in nets.items():
        if name not in first.nets:
            raise ValueError(f"{name}: the base model has no such net ({', '.join(first.nets)})")
        other = NetEvaluator.load(path, device="cpu")
        if other.encoding_version > first.encoding_version:
            raise ValueError(
                f"{path}: encoding v{other.encoding_version}, above the base's v{first.encoding_version}"
            )
        if name not in other.nets:
            raise ValueError(f"{path} has no {name} net")
        chosen[name] = other.nets[name]
        if other.encoding_version < first.encoding_version:  # zero weights on the newer inputs
            chosen[name] = widen(chosen[name], FEATURES_BY_VERSION[first.encoding_version])
        run = other.info.run if other.info is not None else {}
        sources[name] = {
            "file": str(path),
            "sha256": other.info.sha256 if other.info is not None else None,
            "encoding": other.encoding_version,
            "run": {k: v for k, v in run.items() if k != "composed"},
        }
    ev = NetEvaluator(
        chosen["contact"], chosen["race"], device="cpu",
        encoding_version=first.encoding_version, crashed_net=chosen.get("crashed"),
    )  # fmt: skip
    base_run = dict(first.info.run) if first.info is not None else {}
    base_sha = first.info.sha256 if first.info is not None else None
    run = {**base_run, "composed": {"base": {"file": str(base), "sha256": base_sha}, **sources}}
    if note:
        run["note"] = note
    ev.info = ev.save(out, run)
    return ev
