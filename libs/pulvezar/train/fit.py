"""Fit pulvezar's contact and race nets to the corpus's teacher labels (issue 13, section 3).

``pulvezar train fit --label-set 1ply --workdir runs/fit-a --init MODEL`` trains
(or resumes training of) the two nets of a model file on the labelled positions of a label
set of the committed corpus (:mod:`pulvezar.train.corpus`, :mod:`pulvezar.train.labels`):

- **Data**: the positions of ``corpus/positions.npz`` of one rule set (``rules``, by default
  international) that carry a label of the set (shards of ``corpus/labels-SET``, plus shards of
  the same set found only in ``more_labels``, e.g. a labelling run's ``runs/corpus``; each shard
  is checked against the corpus by its keys' digest).  Positions of other rule sets are left out
  (a Tavla rule set's labels come from pulvezar's own search under its rules; its nets are a
  model's ``variants``, :mod:`pulvezar.train.compose`).  The shards used are recorded at the first
  start, so a resumed run reads the same data even when labelling has gone on since.  A
  label is the five cumulative probabilities of the player on roll, the evaluator's
  convention (checked against gnubg-nn and :func:`pulvezar.eval.evaluator.default_evaluator`
  in ``tests/train/test_fit.py``), projected onto consistent values.
- **Classes**: contact and crashed positions train the contact net, races the race net
  (the evaluator's routing); bear-off positions and finished games are valued exactly by
  the evaluator and are not in the corpus (any that were would be skipped).
- **Held-out split**: 5% of the positions (``holdout``), drawn with the run's seed.
- **Training**: Adam and binary cross-entropy on the five outputs (as
  :mod:`pulvezar.train.supervised`), mini-batches in an order drawn from one numpy
  ``Generator``; the learning rate of epoch ``e`` is ``lr * lr_decay ** (e - 1)``.  Each
  net stops on its own after ``patience`` epochs without a better held-out loss and keeps
  the weights of its best epoch (early stopping).
- **Checkpoints**: after every epoch ``workdir/checkpoint.pt`` (both nets' current and best
  weights, the optimizers, the epoch, the numpy and torch generator states, the history)
  is written atomically; a resumed run continues exactly (same bits as an uninterrupted
  one, on the same device and thread count).
- **Learning curve**: ``workdir/curve.csv`` (epoch, train loss, held-out loss, held-out
  cubeless equity RMSE, seconds, per net besides) and ``curve.png`` when matplotlib is
  installed.
- **Decision groups** (``groups``, :mod:`pulvezar.train.groups`): label sets of decision-group
  files join the data as whole groups (one roll's candidate positions, each label set its own
  groups; a decision is held out in every source or in none, so one teacher's labels of a
  held-out decision never train the net); a batch is a set of whole groups, and besides
  the cross-entropy each batch pays ``group_weight`` times the mean squared error of the
  *centred* cubeless equities (each position's equity minus its group's mean, against the
  same for the labels): the differences between sibling positions, which decide the play.
  Held out, the **decision loss** is the teacher's equity lost by the net's choice in each
  group (x 1000); ``stop_on = "decision"`` stops early on it.
- **Nets**: fresh nets of ``encoding`` (version), ``layers`` hidden layers (or the layer ``widths``
  and ``race_widths`` given, and ``activation="crelu"`` for the quantised kernel); ``crashed_hidden > 0``
  adds a crashed net (crashed positions leave the contact net; from ``--init`` it starts as
  a copy of the contact net); an ``--init`` model of a lower encoding is widened (the new
  inputs start with zero weights).  ``train`` names the nets to train (``--train crashed,race``:
  the others are ``--init``'s, bit for bit, and their positions are not even loaded); ``fresh``
  names nets that start fresh, of this config's sizes, although there is an ``--init``.
  ``keep_inputs``: a net trained from ``--init`` keeps the encoding it uses (the first layer's
  weights on inputs it does not use, zero in a widened net, get no gradient), so the quantised
  kernel still computes only those inputs (:func:`pulvezar.eval.quantised.used_version`).
- **Result**: ``workdir/model.pt`` (with ``model.json``) through :meth:`NetEvaluator.save`,
  the best weights of each net, with run metadata naming the teachers and how many labels
  each gave (training and held-out), as the model card (``docs/models.md``) asks.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from pulvezar.eval import _forward
from pulvezar.eval.encoding import ENCODING_VERSION, FEATURES_BY_VERSION, ensure_race_tables
from pulvezar.eval.evaluator import NetEvaluator, equity
from pulvezar.eval.nets import ValueNet
from pulvezar.train.corpus import (
    BEAROFF,
    CLASSES,
    CONTACT,
    CRASHED,
    RACE,
    RULE_NAMES,
    boards_of_keys,
    read_npz,
    seed_of,
)
from pulvezar.train.labels import TEACHERS, UNLABELLED, keys_digest, read_labels, shard_path
from pulvezar.train.supervised import bce, consistent, load_nets, resolve_device

Boards = npt.NDArray[np.uint8]
Probs = npt.NDArray[np.float64]
Log = Callable[[str], None]

CONFIG_FILE = "config.json"
CHECKPOINT_FILE = "checkpoint.pt"
CURVE_FILE = "curve.csv"
MODEL_FILE = "model.pt"
ALL_NETS = ("contact", "crashed", "race")
STOP_ON = ("loss", "rmse", "decision")


@dataclass
class FitConfig:
    """Settings of a fit (stored in ``workdir/config.json`` and in the model file's metadata)."""

    label_set: str = "1ply"
    corpus: str = "data/corpus"  # positions.npz and the committed label shards
    more_labels: str = ""  # another folder with shards of the same set (e.g. runs/corpus), read only
    init: str = ""  # model file or TD checkpoint to start from; "" = fresh nets
    hidden: int = 160  # contact net (fresh nets only; --init keeps its sizes)
    race_hidden: int = 64
    epochs: int = 20
    batch: int = 256
    lr: float = 3e-4
    lr_decay: float = 1.0  # per epoch
    patience: int = 4  # epochs without a better held-out loss before a net stops
    holdout: float = 0.05
    max_positions: int = 0  # the first N labelled international positions (corpus order); 0 = all
    seed: int = 1
    threads: int = 1
    device: str = "cpu"  # "auto": CUDA when present (bits differ from the CPU's)
    groups: str = ""  # comma-separated FOLDER:SET label sets of decision-group files (pulvezar.train.groups)
    group_weight: float = 1.0  # weight of the centred-equity loss within groups
    equity_weight: float = 0.0  # weight of the equities' squared error against the labels (issue 43)
    encoding: int = 0  # fresh nets (and widening an --init): the encoding version; 0 = ENCODING_VERSION
    layers: int = 1  # fresh nets: hidden layers of the contact and crashed nets
    race_layers: int = 1  # fresh nets: hidden layers of the race net
    crashed_hidden: int = 0  # > 0: a crashed net of this width (fresh, or a copy of --init's contact net)
    stop_on: str = "loss"  # early stopping on the held-out "loss", equity "rmse" or group "decision" loss
    train: str = ""  # comma-separated nets to train (the others are --init's, unchanged); "" = every net
    fresh: str = ""  # comma-separated nets that start fresh (this config's sizes) even with --init
    widths: str = (
        ""  # fresh contact and crashed nets: comma-separated layer widths (overrides hidden, layers)
    )
    race_widths: str = ""  # fresh race net: comma-separated layer widths (overrides race_hidden, race_layers)
    activation: str = "relu"  # fresh nets: "relu", or "crelu" (clipped, for the quantised kernel)
    late: int = (
        0  # fresh contact and crashed nets: 1 = the hand-made inputs join the second layer (ValueNet late)
    )
    rules: str = "international"  # the rule set (Rules.name) whose positions train the nets
    keep_inputs: int = (
        0  # 1 = nets trained from --init keep the encoding they use (no weight on other inputs)
    )

    def rules_id(self) -> int:
        """The corpus's ``rules`` index of :attr:`rules`."""
        if self.rules not in RULE_NAMES:
            raise ValueError(f"rules is one of {', '.join(RULE_NAMES)}, got {self.rules!r}")
        return RULE_NAMES.index(self.rules)

    def nets(self) -> tuple[str, ...]:
        """The nets of the model this fit makes."""
        return ALL_NETS if self.crashed_hidden > 0 else ("contact", "race")

    def trained(self) -> tuple[str, ...]:
        """The nets this fit trains (:meth:`nets`, or the ones ``train`` names; those need ``--init``)."""
        return self._subset("train", self.train) or self.nets()

    def fresh_nets(self) -> tuple[str, ...]:
        """The nets that start fresh although there is an ``--init``."""
        return self._subset("fresh", self.fresh)

    def _subset(self, what: str, text: str) -> tuple[str, ...]:
        names = tuple(n.strip() for n in text.split(",") if n.strip())
        wrong = [n for n in names if n not in self.nets()]
        if wrong:
            raise ValueError(
                f"{what}: {', '.join(wrong)} is not a net of this fit ({', '.join(self.nets())})"
            )
        if names and not self.init:
            raise ValueError(f"{what} needs --init (the model the other nets come from)")
        return names

    def group_sources(self) -> list[tuple[str, str]]:
        """``(folder, label set)`` of each decision-group source."""
        out = []
        for part in filter(None, (p.strip() for p in self.groups.split(","))):
            folder, _, name = part.rpartition(":")
            if not folder or not name:
                raise ValueError(f"groups: {part!r} is not FOLDER:SET")
            out.append((folder, name))
        return out


@dataclass
class Data:
    """Encoded training and held-out data of one net, rows sorted by group (``g``, ``hg``: group keys;
    a position of no group has a key of its own)."""

    x: torch.Tensor
    y: torch.Tensor
    hx: torch.Tensor
    hy: torch.Tensor
    hboards: Boards
    g: npt.NDArray[np.int64] | None = None
    hg: npt.NDArray[np.int64] | None = None


@dataclass
class Rows:
    """Labelled positions of every source before the split: group key ``-1`` = no group."""

    boards: Boards
    probs: Probs
    teacher: npt.NDArray[np.uint8]
    cls: npt.NDArray[np.uint8]
    group: npt.NDArray[np.int64]


GROUP_STRIDE = 1 << 32  # group keys: source number * GROUP_STRIDE + the decision's corpus index


def load_groups(cfg: FitConfig) -> tuple[Rows, dict[str, Any]]:
    """The labelled positions of every decision-group source (bear-offs and finished games left out)."""
    parts: list[Rows] = []
    info: dict[str, Any] = {}
    if cfg.group_sources() and cfg.rules_id() != 0:
        raise ValueError("the decision groups are international: a fit of another rule set takes none")
    for k, (folder, name) in enumerate(cfg.group_sources(), start=1):
        g = read_npz(Path(folder) / "corpus.npz")
        probs, teacher = read_labels(folder, name, g)
        keep = (teacher != UNLABELLED) & (g["cls"] < BEAROFF) & (g["rules"] == 0)
        parts.append(
            Rows(
                boards=boards_of_keys(g["keys"][keep]),
                probs=consistent(probs[keep]),
                teacher=teacher[keep],
                cls=g["cls"][keep],
                group=k * GROUP_STRIDE + g["group"][keep].astype(np.int64),
            )
        )
        meta_path = Path(folder) / "corpus.json"
        sha = json.loads(meta_path.read_text()).get("sha256") if meta_path.exists() else None
        info[f"{folder}:{name}"] = {"positions": int(keep.sum()), "groups_sha256": sha}
    if not parts:
        return Rows(np.zeros((0, 50), np.uint8), np.zeros((0, 5)), np.zeros(0, np.uint8),
                    np.zeros(0, np.uint8), np.zeros(0, np.int64)), info  # fmt: skip
    return Rows(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(Rows))), info


def holdout_mask(
    n_corpus: int, group: npt.NDArray[np.int64], share: float, seed: int
) -> npt.NDArray[np.bool_]:
    """Which rows are held out: ``share`` of the ``n_corpus`` corpus positions, then of the group rows
    (keys ``group``) a ``share`` of the decisions, each decision held out in every source or in none
    (a source's labels of a held-out decision never train the net)."""
    holdout = np.zeros(n_corpus, dtype=bool)
    holdout[np.random.default_rng(seed_of(seed, 1)).permutation(n_corpus)[: round(share * n_corpus)]] = True
    decision = group % GROUP_STRIDE
    ud = np.unique(decision)
    held = ud[np.random.default_rng(seed_of(seed, 3)).random(len(ud)) < share]
    return np.concatenate([holdout, np.isin(decision, held)])


def _atomic_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def keep_used_inputs(net: ValueNet, version: int) -> int:
    """Mask the gradient of ``net``'s first-layer weights on the inputs beyond the encoding it uses
    (:func:`pulvezar.eval.quantised.used_version`), so that training (Adam, no weight decay) leaves
    them zero; returns that encoding version."""
    from pulvezar.eval.quantised import used_version

    first = net.body[0]
    assert isinstance(first, torch.nn.Linear)
    if net.late:  # the first layer takes only the raw inputs
        return version
    used = used_version(first.weight.detach().cpu().numpy(), version)
    if used < version:
        mask = torch.zeros_like(first.weight)
        mask[:, : FEATURES_BY_VERSION[used]] = 1.0
        first.weight.register_hook(lambda g: g * mask)  # type: ignore[no-untyped-call]
    return used


# ---- data ---------------------------------------------------------------------------------------


def labelled_shards(cfg: FitConfig, max_positions: int = 0) -> list[tuple[int, str]]:
    """``(shard index, folder)`` of every shard of the set present in the corpus folder or in
    ``more_labels`` (the corpus folder first), in order; with ``max_positions``, only as many
    leading shards as hold that many labelled international positions."""
    corpus = read_npz(Path(cfg.corpus) / "positions.npz")
    meta = json.loads((Path(cfg.corpus) / f"labels-{cfg.label_set}.json").read_text())
    shard = int(meta["shard"])
    n = len(corpus["keys"])
    out: list[tuple[int, str]] = []
    have = 0
    for i in range((n + shard - 1) // shard):
        for folder in (cfg.corpus, cfg.more_labels):
            if folder and shard_path(folder, i, cfg.label_set).exists():
                out.append((i, folder))
                break
        else:
            continue
        if max_positions:
            t = read_npz(shard_path(out[-1][1], i, cfg.label_set))["teacher"]
            rules = corpus["rules"][i * shard : (i + 1) * shard]
            have += int(((rules == cfg.rules_id()) & (t != UNLABELLED)).sum())
            if have >= max_positions:
                break
    return out


def load_labels(
    cfg: FitConfig, shards: list[tuple[int, str]]
) -> tuple[Boards, Probs, npt.NDArray[np.uint8], npt.NDArray[np.uint8], dict[str, Any]]:
    """Boards, consistent labels, teacher ids and classes of the labelled international positions
    of ``shards`` (corpus order; the first ``max_positions``), and what was read."""
    corpus = read_npz(Path(cfg.corpus) / "positions.npz")
    meta = json.loads((Path(cfg.corpus) / f"labels-{cfg.label_set}.json").read_text())
    shard = int(meta["shard"])
    idx_l, probs_l, teacher_l = [], [], []
    for i, folder in shards:
        lo, hi = i * shard, min(len(corpus["keys"]), (i + 1) * shard)
        s = read_npz(shard_path(folder, i, cfg.label_set))
        if len(s["probs"]) != hi - lo or not np.array_equal(
            s["keys_sha256"], keys_digest(corpus["keys"][lo:hi], corpus["rules"][lo:hi])
        ):
            raise ValueError(f"{shard_path(folder, i, cfg.label_set)} does not belong to {cfg.corpus}")
        keep = (corpus["rules"][lo:hi] == cfg.rules_id()) & (s["teacher"] != UNLABELLED)
        idx_l.append(lo + np.flatnonzero(keep))
        probs_l.append(s["probs"][keep].astype(np.float64))
        teacher_l.append(s["teacher"][keep])
    idx = np.concatenate(idx_l) if idx_l else np.zeros(0, dtype=np.intp)
    probs = np.concatenate(probs_l) if probs_l else np.zeros((0, 5))
    teacher = np.concatenate(teacher_l) if teacher_l else np.zeros(0, dtype=np.uint8)
    if cfg.max_positions:
        idx, probs, teacher = (
            idx[: cfg.max_positions],
            probs[: cfg.max_positions],
            teacher[: cfg.max_positions],
        )
    boards = boards_of_keys(corpus["keys"][idx])
    cls = corpus["cls"][idx]
    info = {
        "corpus_sha256": json.loads((Path(cfg.corpus) / f"labels-{cfg.label_set}.json").read_text()).get(
            "corpus_sha256"
        ),
        "shards": len(shards),
        "positions": len(idx),
    }
    return boards, consistent(probs), teacher, cls, info


def teacher_counts(teacher: npt.NDArray[np.uint8]) -> dict[str, int]:
    return {TEACHERS[int(t)]: int((teacher == t).sum()) for t in np.unique(teacher)}


# ---- the run ------------------------------------------------------------------------------------


class FitRun:
    """A fit in ``workdir`` (see the module docstring)."""

    def __init__(self, config: FitConfig, workdir: str | Path) -> None:
        self.workdir = Path(workdir)
        saved = self.saved_config(self.workdir)
        if saved is not None:  # a run continues with its own settings; only its length and threads change
            saved.epochs, saved.threads = config.epochs, config.threads
            config = saved
        self.config = config
        self.device = resolve_device(config.device)
        self._meta: dict[str, Any] | None = None

    @staticmethod
    def saved_config(workdir: str | Path) -> FitConfig | None:
        path = Path(workdir) / CONFIG_FILE
        if not path.exists():
            return None
        raw = json.loads(path.read_text())
        known = {f.name for f in fields(FitConfig)}
        return FitConfig(**{k: v for k, v in raw["config"].items() if k in known})

    @property
    def checkpoint_path(self) -> Path:
        return self.workdir / CHECKPOINT_FILE

    @property
    def model_path(self) -> Path:
        return self.workdir / MODEL_FILE

    # ---- start ----------------------------------------------------------------------------------
    def _start(self, log: Log) -> dict[str, Any]:
        """The run's fixed part: config, shards used and provenance of the start nets (written once)."""
        path = self.workdir / CONFIG_FILE
        if path.exists():
            meta: dict[str, Any] = json.loads(path.read_text())
            return meta
        cfg = self.config
        shards = labelled_shards(cfg, cfg.max_positions)
        if not shards:
            raise ValueError(
                f"no shards of label set {cfg.label_set!r} under {cfg.corpus} or {cfg.more_labels}"
            )
        meta = {"config": asdict(cfg), "shards": [[i, f] for i, f in shards]}
        self.workdir.mkdir(parents=True, exist_ok=True)
        _atomic_bytes(path, (json.dumps(meta, indent=2) + "\n").encode())
        log(f"fit: {len(shards)} shards of label set {cfg.label_set}")
        return meta

    def _initial_nets(self) -> tuple[dict[str, ValueNet], int, dict[str, Any]]:
        cfg = self.config
        torch.manual_seed(seed_of(cfg.seed, 0))
        if cfg.init:
            c, r, version, info = load_nets(cfg.init)
            crashed = _crashed_net_of(cfg.init)
            want = cfg.encoding or version
            if want < version:
                raise ValueError(f"--encoding {want} is below the init's encoding v{version}")
            nets = {"contact": c, "race": r}
            if "crashed" in cfg.nets():
                nets["crashed"] = crashed if crashed is not None else _copy_net(c)
            if want > version:
                nets = {n: widen(net, FEATURES_BY_VERSION[want]) for n, net in nets.items()}
                info = {**info, "widened_from_encoding": version}
            for n in cfg.fresh_nets():
                nets[n] = self._fresh_net(n, FEATURES_BY_VERSION[want])
                info = {**info, "fresh": list(cfg.fresh_nets())}
            return nets, want, info
        version = cfg.encoding or ENCODING_VERSION
        feats = FEATURES_BY_VERSION[version]
        nets = {n: self._fresh_net(n, feats) for n in cfg.nets()}
        return nets, version, {"source": "fresh nets", "seed": cfg.seed}

    def _fresh_net(self, name: str, features: int) -> ValueNet:
        cfg = self.config
        text = cfg.race_widths if name == "race" else cfg.widths
        widths = [int(w) for w in text.split(",") if w.strip()] or None
        if name == "race":
            return ValueNet(cfg.race_hidden, cfg.race_layers, features, widths, cfg.activation)
        hidden = cfg.crashed_hidden if name == "crashed" else cfg.hidden
        return ValueNet(hidden, cfg.layers, features, widths, cfg.activation, late=bool(cfg.late))

    def _split(self, corpus: Rows, groups: Rows, version: int) -> tuple[dict[str, Data], dict[str, Any]]:
        cfg = self.config
        n0 = len(corpus.boards)
        holdout = holdout_mask(n0, groups.group, cfg.holdout, cfg.seed)
        boards = np.concatenate([corpus.boards, groups.boards])
        probs = np.concatenate([corpus.probs, groups.probs])
        teacher = np.concatenate([corpus.teacher, groups.teacher])
        cls = np.concatenate([corpus.cls, groups.cls])
        key = np.concatenate([-1 - np.arange(n0, dtype=np.int64), groups.group])  # no group: a key of its own
        grouped = len(groups.boards) > 0
        own_crashed = "crashed" in self.config.nets()
        route = {
            "contact": (cls == CONTACT) | ((cls == CRASHED) & (not own_crashed)),
            "crashed": cls == CRASHED,
            "race": cls == RACE,
        }
        skipped = int((cls >= BEAROFF).sum())
        data: dict[str, Data] = {}
        counts: dict[str, Any] = {"skipped_exact": skipped, "classes": {}}
        for k, name in enumerate(CLASSES[:3]):
            counts["classes"][name] = int((cls == k).sum())
        dev = self.device
        for name in self.nets:
            tr = np.flatnonzero(route[name] & ~holdout)
            ho = np.flatnonzero(route[name] & holdout)
            if grouped:  # the rows of a group side by side
                tr = tr[np.argsort(key[tr], kind="stable")]
                ho = ho[np.argsort(key[ho], kind="stable")]
            data[name] = Data(
                x=torch.from_numpy(_encode(boards[tr], version)).to(dev),
                y=torch.from_numpy(probs[tr].astype(np.float32)).to(dev),
                hx=torch.from_numpy(_encode(boards[ho], version)).to(dev),
                hy=torch.from_numpy(probs[ho].astype(np.float32)).to(dev),
                hboards=boards[ho],
                g=key[tr] if grouped else None,
                hg=key[ho] if grouped else None,
            )
            counts[name] = {"train": len(tr), "holdout": len(ho)}
        used = np.zeros(len(cls), dtype=bool)
        for name in self.nets:
            used |= route[name]
        counts["teachers"] = teacher_counts(teacher[used & ~holdout])
        counts["holdout_teachers"] = teacher_counts(teacher[used & holdout])
        if grouped:
            counts["group_positions"] = {
                "train": int((~holdout[n0:]).sum()),
                "holdout": int(holdout[n0:].sum()),
            }
        return data, counts

    # ---- the loop -------------------------------------------------------------------------------
    def run(self, log: Log = print, stop_after: int | None = None) -> bool:
        """Train (or resume) until ``config.epochs`` or early stopping; ``True`` when done and
        ``model.pt`` is written, ``False`` when ``stop_after`` epochs were run in this call first."""
        t_start = time.perf_counter()
        cfg = self.config
        if cfg.stop_on not in STOP_ON:
            raise ValueError(f"stop_on is one of {', '.join(STOP_ON)}")
        torch.set_num_threads(cfg.threads)
        meta = self._start(log)
        shards = [(int(i), str(f)) for i, f in meta["shards"]]
        self.nets = cfg.trained()
        initial, version, init_info = self._initial_nets()
        nets = {n: initial[n].to(self.device) for n in self.nets}
        kept = {n: initial[n] for n in cfg.nets() if n not in self.nets}  # --init's, as they are
        boards, probs, teacher, cls, data_info = load_labels(cfg, shards)
        group_rows, data_info["groups"] = load_groups(cfg)
        data, counts = self._split(
            Rows(boards, probs, teacher, cls, np.full(len(boards), -1)), group_rows, version
        )
        if cfg.keep_inputs:
            fresh = set(cfg.fresh_nets()) if cfg.init else set(self.nets)
            for n in self.nets:
                if n not in fresh:
                    keep_used_inputs(nets[n], version)
        opts: dict[str, torch.optim.Optimizer] = {
            n: torch.optim.Adam(nets[n].parameters(), lr=cfg.lr) for n in self.nets
        }
        rng = np.random.default_rng(seed_of(cfg.seed, 2))
        state: dict[str, Any] = {
            "epoch": 0,
            "history": [],
            "seconds": 0.0,
            "nets": {n: {"best": float("inf"), "best_epoch": 0, "stopped": False} for n in self.nets},
        }
        best_states = {n: _copy_state(nets[n]) for n in self.nets}
        if self.checkpoint_path.exists():
            ck = torch.load(self.checkpoint_path, map_location="cpu", weights_only=False)
            for n in self.nets:
                nets[n].load_state_dict(ck["nets"][n]["state"])
                opts[n].load_state_dict(ck["nets"][n]["opt"])
                best_states[n] = ck["nets"][n]["best_state"]
            rng.bit_generator.state = ck["rng"]
            torch.set_rng_state(ck["torch_rng"])
            state = ck["meta"]
            log(f"fit: resumed after epoch {state['epoch']}")
        else:
            row = self._measure(nets, data, 0, float("nan"), 0.0)
            state["history"].append(row)
            for n in self.nets:
                state["nets"][n]["best"] = self._criterion(row, n)
            log(_row_text(row, self.nets))
            self._write_curve(state["history"])
        setup = time.perf_counter() - t_start
        sizes = " + ".join(f"{counts[n]['train']} {n}" for n in self.nets)
        held = " + ".join(str(counts[n]["holdout"]) for n in self.nets)
        log(f"fit: {sizes} positions ({held} held out), set-up {setup:.1f} s")
        ran = 0
        while state["epoch"] < cfg.epochs and not all(state["nets"][n]["stopped"] for n in self.nets):
            if stop_after is not None and ran >= stop_after:
                return False
            t0 = time.perf_counter()
            epoch = state["epoch"] + 1
            lr = cfg.lr * cfg.lr_decay ** (epoch - 1)
            losses: dict[str, float] = {}
            for n in self.nets:
                s = state["nets"][n]
                if s["stopped"]:  # its weights no longer change: its last epoch's training loss
                    losses[n] = s.get("train", float("nan"))
                    continue
                for g in opts[n].param_groups:
                    g["lr"] = lr
                losses[n] = s["train"] = self._epoch(nets[n], opts[n], data[n], rng)
            train_loss = _weighted({n: (losses[n], len(data[n].x)) for n in losses})
            row = self._measure(nets, data, epoch, train_loss, 0.0, losses)
            for n in self.nets:
                s = state["nets"][n]
                if s["stopped"]:
                    continue
                if self._criterion(row, n) < s["best"]:
                    s["best"], s["best_epoch"] = self._criterion(row, n), epoch
                    best_states[n] = _copy_state(nets[n])
                elif epoch - s["best_epoch"] >= cfg.patience:
                    s["stopped"] = True
                    log(f"fit: {n} net stops at epoch {epoch} (best epoch {s['best_epoch']})")
            dt = time.perf_counter() - t0
            state["seconds"] += dt
            row["seconds"] = round(state["seconds"], 1)
            row["lr"] = lr
            state["epoch"] = epoch
            state["history"].append(row)
            self._checkpoint(nets, opts, best_states, rng, state)
            self._write_curve(state["history"])
            log(_row_text(row, self.nets))
            ran += 1
        self._finish({**kept, **nets}, best_states, version, init_info, data, counts, data_info, state, log)
        return True

    def _criterion(self, row: dict[str, Any], n: str) -> float:
        """What early stopping watches for net ``n`` (lower is better)."""
        stop_on = self.config.stop_on
        if stop_on == "decision" and row.get(f"{n}_holdout_decision_loss", float("nan")) == row.get(
            f"{n}_holdout_decision_loss"
        ):
            return float(row[f"{n}_holdout_decision_loss"])
        if stop_on == "rmse":
            return float(row[f"{n}_holdout_equity_rmse"])
        return float(row[f"{n}_holdout_loss"])

    def _epoch(self, net: ValueNet, opt: torch.optim.Optimizer, d: Data, rng: np.random.Generator) -> float:
        if len(d.x) == 0:
            return float("nan")
        net.train()
        total = torch.zeros((), dtype=torch.float64)
        b = self.config.batch
        if d.g is None:  # no groups: mini-batches of positions
            order = torch.from_numpy(rng.permutation(len(d.x))).to(self.device)
            for s in range(0, len(order), b):
                idx = order[s : s + b]
                pred = net(d.x[idx])
                loss = bce(pred, d.y[idx])
                if self.config.equity_weight:
                    eq = equity_t(pred) - equity_t(d.y[idx])
                    loss = loss + self.config.equity_weight * (eq * eq).mean()
                opt.zero_grad()
                torch.autograd.backward(loss)
                opt.step()
                total += loss.detach().double().cpu() * len(idx)
            net.eval()
            return float(total) / len(d.x)
        order_np, first, ends = _group_order(d.g, rng)
        order = torch.from_numpy(order_np).to(self.device)
        local = torch.from_numpy(np.cumsum(first) - 1).to(self.device)
        cuts = np.unique(
            np.r_[0, ends[np.minimum(np.searchsorted(ends, np.arange(b, len(order) + b, b)), len(ends) - 1)]]
        )
        w = self.config.group_weight
        for s, e in itertools.pairwise(cuts):
            idx = order[s:e]
            pred = net(d.x[idx])
            target = d.y[idx]
            loss = bce(pred, target)
            if w:
                gid = local[s:e] - local[s]
                loss = loss + w * centred_mse(equity_t(pred), equity_t(target), gid)
            if self.config.equity_weight:
                eq = equity_t(pred) - equity_t(target)
                loss = loss + self.config.equity_weight * (eq * eq).mean()
            opt.zero_grad()
            torch.autograd.backward(loss)
            opt.step()
            total += loss.detach().double().cpu() * int(e - s)
        net.eval()
        return float(total) / len(d.x)

    def _measure(
        self,
        nets: dict[str, ValueNet],
        data: dict[str, Data],
        epoch: int,
        train_loss: float,
        seconds: float,
        losses: dict[str, float] | None = None,
    ) -> dict[str, Any]:
        """One curve row: held-out loss, cubeless equity RMSE and group decision loss per net and together."""
        row: dict[str, Any] = {"epoch": epoch, "train_loss": train_loss}
        per: dict[str, tuple[float, int]] = {}
        sq: dict[str, tuple[float, int]] = {}
        dec: dict[str, tuple[float, int]] = {}
        for n in self.nets:
            d = data[n]
            if len(d.hx) == 0:
                per[n], sq[n], dec[n] = (float("nan"), 0), (float("nan"), 0), (float("nan"), 0)
                continue
            nets[n].eval()
            with torch.no_grad():
                pred = nets[n](d.hx)
                loss = float(bce(pred, d.hy))
            pnp = pred.double().cpu().numpy()
            ynp = d.hy.double().cpu().numpy()
            err = float(np.mean((equity(pnp) - equity(ynp)) ** 2))
            per[n], sq[n] = (loss, len(d.hx)), (err, len(d.hx))
            dec[n] = decision_loss(equity(pnp), equity(ynp), d.hg) if d.hg is not None else (float("nan"), 0)
        row["holdout_loss"] = _weighted(per)
        row["holdout_equity_rmse"] = float(np.sqrt(_weighted(sq)))
        row["holdout_decision_loss"] = _weighted(dec)
        row["seconds"] = seconds
        for n in self.nets:
            row[f"{n}_train_loss"] = (losses or {}).get(n, float("nan"))
            row[f"{n}_holdout_loss"] = per[n][0]
            row[f"{n}_holdout_equity_rmse"] = float(np.sqrt(sq[n][0]))
            row[f"{n}_holdout_decision_loss"] = dec[n][0]
        return row

    def _checkpoint(
        self,
        nets: dict[str, ValueNet],
        opts: dict[str, torch.optim.Optimizer],
        best_states: dict[str, dict[str, torch.Tensor]],
        rng: np.random.Generator,
        state: dict[str, Any],
    ) -> None:
        blob = {
            "nets": {
                n: {"state": _copy_state(nets[n]), "opt": opts[n].state_dict(), "best_state": best_states[n]}
                for n in self.nets
            },
            "rng": rng.bit_generator.state,
            "torch_rng": torch.get_rng_state(),
            "meta": state,
        }
        buf = io.BytesIO()
        torch.save(blob, buf)
        _atomic_bytes(self.checkpoint_path, buf.getvalue())

    def _write_curve(self, history: list[dict[str, Any]]) -> None:
        cols = [
            "epoch",
            "train_loss",
            "holdout_loss",
            "holdout_equity_rmse",
            "holdout_decision_loss",
            "seconds",
        ]
        cols += ["lr"]
        keys = ("train_loss", "holdout_loss", "holdout_equity_rmse", "holdout_decision_loss")
        cols += [f"{n}_{k}" for n in self.nets for k in keys]
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in history:
            w.writerow({k: _fmt(r.get(k, "")) for k in cols})
        _atomic_bytes(self.workdir / CURVE_FILE, buf.getvalue().encode())
        plot_curve(history, self.workdir / "curve.png", self.nets)

    def _finish(
        self,
        nets: dict[str, ValueNet],
        best_states: dict[str, dict[str, torch.Tensor]],
        version: int,
        init_info: dict[str, Any],
        data: dict[str, Data],
        counts: dict[str, Any],
        data_info: dict[str, Any],
        state: dict[str, Any],
        log: Log,
    ) -> None:
        cfg = self.config
        for n in self.nets:
            nets[n].load_state_dict(best_states[n])
        for net in nets.values():
            net.cpu().eval()
        ev = NetEvaluator(
            nets["contact"],
            nets["race"],
            device="cpu",
            encoding_version=version,
            crashed_net=nets.get("crashed"),
        )
        hboards = np.concatenate([data[n].hboards for n in self.nets])
        hy = np.concatenate([data[n].hy.double().cpu().numpy() for n in self.nets])
        rmse = (
            float(np.sqrt(np.mean((equity(ev.evaluate_boards(hboards)) - equity(hy)) ** 2)))
            if len(hy)
            else 0.0
        )
        first = state["history"][0]
        run = {
            "name": self.workdir.resolve().name,
            "method": "supervised on corpus teacher labels (pulvezar.train.fit)",
            "label_set": cfg.label_set,
            "teachers": counts["teachers"],
            "holdout_teachers": counts["holdout_teachers"],
            "positions": {n: counts[n] for n in self.nets},
            "trained": list(self.nets),
            "classes": counts["classes"],
            "corpus": {**data_info, "folder": cfg.corpus, "more_labels": cfg.more_labels},
            "init": init_info,
            "encoding_version": version,
            "epochs_run": state["epoch"],
            "best_epoch": {n: state["nets"][n]["best_epoch"] for n in self.nets},
            "holdout_loss": {
                n: _best_value(state["history"], n, state["nets"][n]["best_epoch"]) for n in self.nets
            },
            "holdout_criterion": {n: state["nets"][n]["best"] for n in self.nets},
            "stop_on": cfg.stop_on,
            "holdout_loss_start": {n: first[f"{n}_holdout_loss"] for n in self.nets},
            "holdout_equity_rmse_start": first["holdout_equity_rmse"],
            "holdout_equity_rmse": rmse,  # through the evaluator (C forward pass, its routing)
            "train_seconds": round(state["seconds"], 1),
            **{f"config_{k}": v for k, v in asdict(cfg).items()},
        }
        info = ev.save(self.model_path, run)
        log(
            f"fit: wrote {self.model_path} (sha256 {info.sha256[:16]}); held-out equity RMSE "
            f"{first['holdout_equity_rmse']:.4f} -> {rmse:.4f}; teachers {counts['teachers']}"
        )


# ---- helpers ------------------------------------------------------------------------------------


def _encode(boards: Boards, version: int) -> npt.NDArray[np.float32]:
    """The encoding of ``boards`` (the C encoder: the same values as :func:`encoding.encode`)."""
    if len(boards) == 0:
        return np.zeros((0, FEATURES_BY_VERSION[version]), dtype=np.float32)
    if version >= 4:
        ensure_race_tables()
    raw = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50).tobytes()
    return np.frombuffer(_forward.encode(raw, version), dtype=np.float32).reshape(len(boards), -1).copy()


def _copy_state(net: ValueNet) -> dict[str, torch.Tensor]:
    return {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}


def _copy_net(net: ValueNet) -> ValueNet:
    new = ValueNet(**net.config())
    new.load_state_dict(_copy_state(net))
    return new


def widen(net: ValueNet, features: int) -> ValueNet:
    """``net`` taking ``features`` inputs: the first ones as before, the new ones with zero weights."""
    new = ValueNet(**{**net.config(), "features": features})
    state = _copy_state(net)
    w = state["body.0.weight"]
    state["body.0.weight"] = torch.cat([w, torch.zeros(w.shape[0], features - w.shape[1], dtype=w.dtype)], 1)
    new.load_state_dict(state)
    return new


def _crashed_net_of(path: str) -> ValueNet | None:
    """The crashed net of a model file, if it has one."""
    blob = torch.load(path, map_location="cpu", weights_only=False)
    if not (isinstance(blob, dict) and "crashed" in blob and "config" in blob["crashed"]):
        return None
    net = ValueNet(**blob["crashed"]["config"])
    net.load_state_dict(blob["crashed"]["state"])
    return net


def _best_value(history: list[dict[str, Any]], n: str, epoch: int) -> float:
    for r in history:
        if r["epoch"] == epoch:
            return float(r[f"{n}_holdout_loss"])
    return float("nan")


EQUITY_WEIGHTS = torch.tensor([2.0, 1.0, 1.0, -1.0, -1.0])


def equity_t(probs: torch.Tensor) -> torch.Tensor:
    """Cubeless equity of ``(N, 5)`` probabilities (torch; the player on roll)."""
    return probs @ EQUITY_WEIGHTS.to(probs.device, probs.dtype) - 1.0


def centred_mse(pred: torch.Tensor, target: torch.Tensor, gid: torch.Tensor) -> torch.Tensor:
    """Mean squared error of equities centred on their group's mean (``gid``: 0.. groups - 1).

    >>> p, t = torch.tensor([0.1, 0.3, 0.5]), torch.tensor([0.0, 0.2, 0.9])
    >>> round(float(centred_mse(p, t, torch.tensor([0, 0, 1]))), 6)  # shifts within a group are free
    0.0
    """
    k = int(gid.max()) + 1 if len(gid) else 0
    ones = torch.ones_like(pred)
    count = torch.zeros(k, dtype=pred.dtype, device=pred.device).index_add_(0, gid, ones)
    mp = torch.zeros(k, dtype=pred.dtype, device=pred.device).index_add_(0, gid, pred) / count
    mt = torch.zeros(k, dtype=pred.dtype, device=pred.device).index_add_(0, gid, target) / count
    return (((pred - mp[gid]) - (target - mt[gid])) ** 2).mean()


def _group_order(
    keys: npt.NDArray[np.int64], rng: np.random.Generator
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """Rows (sorted by ``keys``) in a random order of whole groups: the order, the first row of each
    group, and the end of each group in the order."""
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    lengths = np.diff(np.r_[starts, len(keys)])
    perm = rng.permutation(len(starts))
    lens = lengths[perm]
    ends = np.cumsum(lens)
    begin = ends - lens
    order = np.repeat(starts[perm] - begin, lens) + np.arange(int(ends[-1]))
    first = np.zeros(len(order), dtype=bool)
    first[begin] = True
    return order.astype(np.int64), first, ends.astype(np.int64)


def decision_loss(
    pred_eq: npt.NDArray[np.float64], label_eq: npt.NDArray[np.float64], keys: npt.NDArray[np.int64]
) -> tuple[float, int]:
    """Mean over the groups of two or more rows (``keys`` sorted) of the labels' equity lost by the
    play the prediction prefers (x 1000), and the number of such groups.  Rows are positions after a
    play seen by the next player on roll, so the mover's equity is minus theirs.

    >>> decision_loss(np.array([-0.5, 0.0, 0.2]), np.array([0.0, -0.1, 0.3]), np.array([1, 1, 2]))
    (100.0, 1)
    """
    if len(keys) == 0:
        return float("nan"), 0
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    lengths = np.diff(np.r_[starts, len(keys)])
    multi = lengths >= 2
    if not multi.any():
        return float("nan"), 0
    mover_label, mover_pred = -label_eq, -pred_eq
    best = np.maximum.reduceat(mover_label, starts)
    gid = np.repeat(np.arange(len(starts)), lengths)
    order = np.lexsort((-mover_pred, gid))  # per group, the preferred play first
    first = order[starts]
    lost = (best - mover_label[first])[multi]
    return float(1000.0 * lost.mean()), int(multi.sum())


def _weighted(parts: dict[str, tuple[float, int]]) -> float:
    """The mean of per-net values weighted by their sizes (nan when no net has data)."""
    num = sum(v * k for v, k in parts.values() if k and v == v)
    den = sum(k for v, k in parts.values() if k and v == v)
    return float(num / den) if den else float("nan")


def _fmt(v: Any) -> Any:
    return f"{v:.6g}" if isinstance(v, float) else v


def _row_text(r: dict[str, Any], nets: tuple[str, ...] = ("contact", "race")) -> str:
    per = ", ".join(f"{n} {r[f'{n}_holdout_loss']:.5f}" for n in nets)
    rm = ", ".join(f"{n} {r[f'{n}_holdout_equity_rmse']:.4f}" for n in nets)
    text = (
        f"epoch {r['epoch']}: train {r['train_loss']:.5f} held-out {r['holdout_loss']:.5f} ({per}) "
        f"equity rmse {r['holdout_equity_rmse']:.4f} ({rm})"
    )
    if r.get("holdout_decision_loss") == r.get("holdout_decision_loss"):
        dl = ", ".join(f"{n} {r[f'{n}_holdout_decision_loss']:.2f}" for n in nets)
        text += f" decision loss {r['holdout_decision_loss']:.2f} ({dl})"
    return text + f" {r['seconds']:.0f} s"


def plot_curve(
    history: list[dict[str, Any]], path: Path, nets: tuple[str, ...] = ("contact", "race")
) -> bool:
    """Held-out loss, equity RMSE and (with groups) decision loss per epoch as a PNG, when matplotlib
    is installed."""
    import importlib

    try:  # a bench extra; untyped where it is missing
        mpl: Any = importlib.import_module("matplotlib")
        mpl.use("Agg")
        plt: Any = importlib.import_module("matplotlib.pyplot")
    except ImportError:
        return False
    ep = [r["epoch"] for r in history]
    grouped = any(r.get("holdout_decision_loss") == r.get("holdout_decision_loss") for r in history)
    fig, axes = plt.subplots(1, 3 if grouped else 2, figsize=(15 if grouped else 10, 4))
    a, b = axes[0], axes[1]
    a.plot(ep, [r["train_loss"] for r in history], label="train")
    a.plot(ep, [r["holdout_loss"] for r in history], label="held-out")
    a.set_xlabel("epoch")
    a.set_ylabel("loss")
    a.legend()
    b.plot(ep, [r["holdout_equity_rmse"] for r in history], label="all")
    for n in nets:
        b.plot(ep, [r[f"{n}_holdout_equity_rmse"] for r in history], label=n)
    b.set_xlabel("epoch")
    b.set_ylabel("held-out equity RMSE")
    b.legend()
    if grouped:
        c = axes[2]
        for n in nets:
            c.plot(ep, [r.get(f"{n}_holdout_decision_loss", float("nan")) for r in history], label=n)
        c.set_xlabel("epoch")
        c.set_ylabel("held-out decision loss x 1000")
        c.legend()
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    _atomic_bytes(path, buf.getvalue())
    return True
