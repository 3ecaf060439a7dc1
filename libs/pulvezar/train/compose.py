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

``variants`` gives a rule set nets of its own (a Tavla one, :attr:`NetEvaluator.variants`), each
taken from a model file the same way (``--variant tavla+must_bear_off:contact=runs/t1/model.pt``); the
base's own variant nets are kept unless named again.

``race_table_points`` gives the model a race table (:class:`~pulvezar.eval.bearoff.RaceTable`: races
within that many points valued from a one-sided table, not the race net); None keeps the base's.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pulvezar.eval.encoding import FEATURES_BY_VERSION
from pulvezar.eval.evaluator import NetEvaluator
from pulvezar.eval.nets import ValueNet
from pulvezar.train.fit import widen


def compose_models(
    base: str | Path,
    nets: dict[str, str | Path],
    out: str | Path,
    note: str = "",
    variants: Mapping[str, Mapping[str, str | Path]] | None = None,
    race_table_points: int | None = None,
) -> NetEvaluator:
    """Write ``base`` with each net named in ``nets`` taken from that model file, and the rule sets'
    own nets of ``variants`` (rule set name -> net name -> model file); returns the result."""
    first = NetEvaluator.load(base, device="cpu")
    version = first.encoding_version

    def take(name: str, path: str | Path) -> tuple[ValueNet, dict[str, Any]]:
        if name not in first.nets:
            raise ValueError(f"{name}: the base model has no such net ({', '.join(first.nets)})")
        other = NetEvaluator.load(path, device="cpu")
        if other.encoding_version > version:
            raise ValueError(f"{path}: encoding v{other.encoding_version}, above the base's v{version}")
        if name not in other.nets:
            raise ValueError(f"{path} has no {name} net")
        net = other.nets[name]
        if other.encoding_version < version:  # zero weights on the newer inputs
            net = widen(net, FEATURES_BY_VERSION[version])
        run = other.info.run if other.info is not None else {}
        return net, {
            "file": str(path),
            "sha256": other.info.sha256 if other.info is not None else None,
            "encoding": other.encoding_version,
            "run": {
                k: v for k, v in run.items() if k not in ("composed", "variants", "init")
            },  # init: config_init
        }

    chosen = dict(first.nets)
    sources: dict[str, Any] = {}
    for name, path in nets.items():
        chosen[name], sources[name] = take(name, path)
    own = {rules: dict(vnets) for rules, vnets in first.variants.items()}
    base_run = dict(first.info.run) if first.info is not None else {}
    own_sources: dict[str, Any] = dict(base_run.get("variants", {}))
    for rules, vnets in (variants or {}).items():
        for name, path in vnets.items():
            net, src = take(name, path)
            own.setdefault(rules, {})[name] = net
            own_sources.setdefault(rules, {})[name] = src
    ev = NetEvaluator(
        chosen["contact"], chosen["race"], device="cpu",
        encoding_version=version, crashed_net=chosen.get("crashed"), variants=own,
        race_table_points=first.race_table_points if race_table_points is None else race_table_points,
    )  # fmt: skip
    base_sha = first.info.sha256 if first.info is not None else None
    run = {**base_run, "composed": {"base": {"file": str(base), "sha256": base_sha}, **sources}}
    run["name"] = Path(out).stem  # not the base's: the model card and the books name the file by it
    if own_sources:
        run["variants"] = own_sources
    if note:
        run["note"] = note
    ev.info = ev.save(out, run)
    return ev
