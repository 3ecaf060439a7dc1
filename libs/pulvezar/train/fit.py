"""Fit pulvezar's contact and race nets to the corpus's teacher labels (issue 13, section 3).

``python -m pulvezar.train fit --label-set 1ply --workdir runs/fit-a --init MODEL`` trains
(or resumes training of) the two nets of a model file on the labelled positions of a label
set of the committed corpus (:mod:`pulvezar.train.corpus`, :mod:`pulvezar.train.labels`):

- **Data**: the international positions of ``corpus/positions.npz`` that carry a label of
  the set (shards of ``corpus/labels-SET``, plus shards of the same set found only in
  ``more_labels``, e.g. a labelling run's ``runs/corpus``; each shard is checked against
  the corpus by its keys' digest).  Tavla positions are left out (their labels come from
  pulvezar's own search and another rule set).  The shards used are recorded at the first
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
- **Result**: ``workdir/model.pt`` (with ``model.json``) through :meth:`NetEvaluator.save`,
  the best weights of each net, with run metadata naming the teachers and how many labels
  each gave (training and held-out), as the model card (``docs/models.md``) asks.
"""

from __future__ import annotations

import argparse
import csv
import io
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

from pulvezar.eval.encoding import ENCODING_VERSION, FEATURES_BY_VERSION, encode
from pulvezar.eval.evaluator import NetEvaluator, equity
from pulvezar.eval.nets import ValueNet
from pulvezar.train.corpus import BEAROFF, CLASSES, CONTACT, CRASHED, RACE, boards_of_keys, read_npz, seed_of
from pulvezar.train.labels import PRESETS, TEACHERS, UNLABELLED, keys_digest, shard_path
from pulvezar.train.supervised import bce, consistent, load_nets, resolve_device

Boards = npt.NDArray[np.uint8]
Probs = npt.NDArray[np.float64]
Log = Callable[[str], None]

CONFIG_FILE = "config.json"
CHECKPOINT_FILE = "checkpoint.pt"
CURVE_FILE = "curve.csv"
MODEL_FILE = "model.pt"
NETS = ("contact", "race")


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


@dataclass
class Data:
    """Encoded training and held-out data of one net."""

    x: torch.Tensor
    y: torch.Tensor
    hx: torch.Tensor
    hy: torch.Tensor
    hboards: Boards


def _atomic_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


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
            have += int(((corpus["rules"][i * shard : (i + 1) * shard] == 0) & (t != UNLABELLED)).sum())
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
        keep = (corpus["rules"][lo:hi] == 0) & (s["teacher"] != UNLABELLED)
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

    def _initial_nets(self) -> tuple[ValueNet, ValueNet, int, dict[str, Any]]:
        cfg = self.config
        if cfg.init:
            return load_nets(cfg.init)
        torch.manual_seed(seed_of(cfg.seed, 0))
        feats = FEATURES_BY_VERSION[ENCODING_VERSION]
        c = ValueNet(cfg.hidden, features=feats)
        r = ValueNet(cfg.race_hidden, features=feats)
        return c, r, ENCODING_VERSION, {"source": "fresh nets", "seed": cfg.seed}

    def _split(
        self,
        boards: Boards,
        probs: Probs,
        teacher: npt.NDArray[np.uint8],
        cls: npt.NDArray[np.uint8],
        version: int,
    ) -> tuple[dict[str, Data], dict[str, Any]]:
        cfg = self.config
        rng = np.random.default_rng(seed_of(cfg.seed, 1))
        holdout = np.zeros(len(boards), dtype=bool)
        holdout[rng.permutation(len(boards))[: round(cfg.holdout * len(boards))]] = True
        route = {"contact": (cls == CONTACT) | (cls == CRASHED), "race": cls == RACE}
        skipped = int((cls >= BEAROFF).sum())
        data: dict[str, Data] = {}
        counts: dict[str, Any] = {"skipped_exact": skipped, "classes": {}}
        for k, name in enumerate(CLASSES[:3]):
            counts["classes"][name] = int((cls == k).sum())
        dev = self.device
        for name in NETS:
            tr, ho = route[name] & ~holdout, route[name] & holdout
            data[name] = Data(
                x=torch.from_numpy(_encode(boards[tr], version)).to(dev),
                y=torch.from_numpy(probs[tr].astype(np.float32)).to(dev),
                hx=torch.from_numpy(_encode(boards[ho], version)).to(dev),
                hy=torch.from_numpy(probs[ho].astype(np.float32)).to(dev),
                hboards=boards[ho],
            )
            counts[name] = {"train": int(tr.sum()), "holdout": int(ho.sum())}
        used = (route["contact"] | route["race"]) & ~holdout
        counts["teachers"] = teacher_counts(teacher[used])
        counts["holdout_teachers"] = teacher_counts(teacher[(route["contact"] | route["race"]) & holdout])
        return data, counts

    # ---- the loop -------------------------------------------------------------------------------
    def run(self, log: Log = print, stop_after: int | None = None) -> bool:
        """Train (or resume) until ``config.epochs`` or early stopping; ``True`` when done and
        ``model.pt`` is written, ``False`` when ``stop_after`` epochs were run in this call first."""
        t_start = time.perf_counter()
        cfg = self.config
        torch.set_num_threads(cfg.threads)
        meta = self._start(log)
        shards = [(int(i), str(f)) for i, f in meta["shards"]]
        contact_net, race_net, version, init_info = self._initial_nets()
        nets = {"contact": contact_net.to(self.device), "race": race_net.to(self.device)}
        boards, probs, teacher, cls, data_info = load_labels(cfg, shards)
        data, counts = self._split(boards, probs, teacher, cls, version)
        opts: dict[str, torch.optim.Optimizer] = {
            n: torch.optim.Adam(nets[n].parameters(), lr=cfg.lr) for n in NETS
        }
        rng = np.random.default_rng(seed_of(cfg.seed, 2))
        state: dict[str, Any] = {
            "epoch": 0,
            "history": [],
            "seconds": 0.0,
            "nets": {n: {"best": float("inf"), "best_epoch": 0, "stopped": False} for n in NETS},
        }
        best_states = {n: _copy_state(nets[n]) for n in NETS}
        if self.checkpoint_path.exists():
            ck = torch.load(self.checkpoint_path, map_location="cpu", weights_only=False)
            for n in NETS:
                nets[n].load_state_dict(ck["nets"][n]["state"])
                opts[n].load_state_dict(ck["nets"][n]["opt"])
                best_states[n] = ck["nets"][n]["best_state"]
            rng.bit_generator.state = ck["rng"]
            torch.set_rng_state(ck["torch_rng"])
            state = ck["meta"]
            log(f"fit: resumed after epoch {state['epoch']}")
        else:
            row = self._measure(nets, data, version, 0, float("nan"), 0.0)
            state["history"].append(row)
            for n in NETS:
                state["nets"][n]["best"] = row[f"{n}_holdout_loss"]
            log(_row_text(row))
            self._write_curve(state["history"])
        setup = time.perf_counter() - t_start
        log(
            f"fit: {counts['contact']['train']} contact + {counts['race']['train']} race positions "
            f"({counts['contact']['holdout']} + {counts['race']['holdout']} held out), set-up {setup:.1f} s"
        )
        ran = 0
        while state["epoch"] < cfg.epochs and not all(state["nets"][n]["stopped"] for n in NETS):
            if stop_after is not None and ran >= stop_after:
                return False
            t0 = time.perf_counter()
            epoch = state["epoch"] + 1
            lr = cfg.lr * cfg.lr_decay ** (epoch - 1)
            losses: dict[str, float] = {}
            for n in NETS:
                s = state["nets"][n]
                if s["stopped"]:  # its weights no longer change: its last epoch's training loss
                    losses[n] = s.get("train", float("nan"))
                    continue
                for g in opts[n].param_groups:
                    g["lr"] = lr
                losses[n] = s["train"] = self._epoch(nets[n], opts[n], data[n], rng)
            train_loss = _weighted({n: (losses[n], len(data[n].x)) for n in losses})
            row = self._measure(nets, data, version, epoch, train_loss, 0.0, losses)
            for n in NETS:
                s = state["nets"][n]
                if s["stopped"]:
                    continue
                if row[f"{n}_holdout_loss"] < s["best"]:
                    s["best"], s["best_epoch"] = row[f"{n}_holdout_loss"], epoch
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
            log(_row_text(row))
            ran += 1
        self._finish(nets, best_states, version, init_info, data, counts, data_info, state, log)
        return True

    def _epoch(self, net: ValueNet, opt: torch.optim.Optimizer, d: Data, rng: np.random.Generator) -> float:
        if len(d.x) == 0:
            return float("nan")
        net.train()
        order = torch.from_numpy(rng.permutation(len(d.x))).to(self.device)
        total = torch.zeros((), dtype=torch.float64)
        b = self.config.batch
        for s in range(0, len(order), b):
            idx = order[s : s + b]
            loss = bce(net(d.x[idx]), d.y[idx])
            opt.zero_grad()
            torch.autograd.backward(loss)
            opt.step()
            total += loss.detach().double().cpu() * len(idx)
        net.eval()
        return float(total) / len(d.x)

    def _measure(
        self,
        nets: dict[str, ValueNet],
        data: dict[str, Data],
        version: int,
        epoch: int,
        train_loss: float,
        seconds: float,
        losses: dict[str, float] | None = None,
    ) -> dict[str, Any]:
        """One curve row: held-out loss and cubeless equity RMSE per net and together."""
        row: dict[str, Any] = {"epoch": epoch, "train_loss": train_loss}
        per: dict[str, tuple[float, int]] = {}
        sq: dict[str, tuple[float, int]] = {}
        for n in NETS:
            d = data[n]
            if len(d.hx) == 0:
                per[n], sq[n] = (float("nan"), 0), (float("nan"), 0)
                continue
            nets[n].eval()
            with torch.no_grad():
                pred = nets[n](d.hx)
                loss = float(bce(pred, d.hy))
            pnp = pred.double().cpu().numpy()
            ynp = d.hy.double().cpu().numpy()
            err = float(np.mean((equity(pnp) - equity(ynp)) ** 2))
            per[n], sq[n] = (loss, len(d.hx)), (err, len(d.hx))
        row["holdout_loss"] = _weighted(per)
        row["holdout_equity_rmse"] = float(np.sqrt(_weighted(sq)))
        row["seconds"] = seconds
        for n in NETS:
            row[f"{n}_train_loss"] = (losses or {}).get(n, float("nan"))
            row[f"{n}_holdout_loss"] = per[n][0]
            row[f"{n}_holdout_equity_rmse"] = float(np.sqrt(sq[n][0]))
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
                for n in NETS
            },
            "rng": rng.bit_generator.state,
            "torch_rng": torch.get_rng_state(),
            "meta": state,
        }
        buf = io.BytesIO()
        torch.save(blob, buf)
        _atomic_bytes(self.checkpoint_path, buf.getvalue())

    def _write_curve(self, history: list[dict[str, Any]]) -> None:
        cols = ["epoch", "train_loss", "holdout_loss", "holdout_equity_rmse", "seconds", "lr"]
        cols += [f"{n}_{k}" for n in NETS for k in ("train_loss", "holdout_loss", "holdout_equity_rmse")]
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in history:
            w.writerow({k: _fmt(r.get(k, "")) for k in cols})
        _atomic_bytes(self.workdir / CURVE_FILE, buf.getvalue().encode())
        plot_curve(history, self.workdir / "curve.png")

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
        for n in NETS:
            nets[n].load_state_dict(best_states[n])
            nets[n].cpu().eval()
        ev = NetEvaluator(nets["contact"], nets["race"], device="cpu", encoding_version=version)
        hboards = np.concatenate([data[n].hboards for n in NETS])
        hy = np.concatenate([data[n].hy.double().cpu().numpy() for n in NETS])
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
            "positions": {n: counts[n] for n in NETS},
            "classes": counts["classes"],
            "corpus": {**data_info, "folder": cfg.corpus, "more_labels": cfg.more_labels},
            "init": init_info,
            "epochs_run": state["epoch"],
            "best_epoch": {n: state["nets"][n]["best_epoch"] for n in NETS},
            "holdout_loss": {n: state["nets"][n]["best"] for n in NETS},
            "holdout_loss_start": {n: first[f"{n}_holdout_loss"] for n in NETS},
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
    if len(boards) == 0:
        return np.zeros((0, FEATURES_BY_VERSION[version]), dtype=np.float32)
    return encode(boards, version)


def _copy_state(net: ValueNet) -> dict[str, torch.Tensor]:
    return {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}


def _weighted(parts: dict[str, tuple[float, int]]) -> float:
    """The mean of per-net values weighted by their sizes (nan when no net has data)."""
    num = sum(v * k for v, k in parts.values() if k and v == v)
    den = sum(k for v, k in parts.values() if k and v == v)
    return float(num / den) if den else float("nan")


def _fmt(v: Any) -> Any:
    return f"{v:.6g}" if isinstance(v, float) else v


def _row_text(r: dict[str, Any]) -> str:
    return (
        f"epoch {r['epoch']}: train {r['train_loss']:.5f} held-out {r['holdout_loss']:.5f} "
        f"(contact {r['contact_holdout_loss']:.5f}, race {r['race_holdout_loss']:.5f}) "
        f"equity rmse {r['holdout_equity_rmse']:.4f} (contact {r['contact_holdout_equity_rmse']:.4f}, "
        f"race {r['race_holdout_equity_rmse']:.4f}) {r['seconds']:.0f} s"
    )


def plot_curve(history: list[dict[str, Any]], path: Path) -> bool:
    """Held-out loss and equity RMSE per epoch as a PNG, when matplotlib is installed."""
    import importlib

    try:  # a bench extra; untyped where it is missing
        mpl: Any = importlib.import_module("matplotlib")
        mpl.use("Agg")
        plt: Any = importlib.import_module("matplotlib.pyplot")
    except ImportError:
        return False
    ep = [r["epoch"] for r in history]
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    a.plot(ep, [r["train_loss"] for r in history], label="train")
    a.plot(ep, [r["holdout_loss"] for r in history], label="held-out")
    a.set_xlabel("epoch")
    a.set_ylabel("BCE")
    a.legend()
    for key, label in (("holdout_equity_rmse", "all"), ("contact_holdout_equity_rmse", "contact"),
                       ("race_holdout_equity_rmse", "race")):  # fmt: skip
        b.plot(ep, [r[key] for r in history], label=label)
    b.set_xlabel("epoch")
    b.set_ylabel("held-out equity RMSE")
    b.legend()
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    _atomic_bytes(path, buf.getvalue())
    return True


def main(argv: list[str]) -> int:
    """``python -m pulvezar.train fit``: train (or resume) the nets on a corpus label set."""
    parser = argparse.ArgumentParser(
        prog="python -m pulvezar.train fit",
        description="Fit the contact and race nets to the corpus's teacher labels (resumable).",
    )
    parser.add_argument("--workdir", required=True, help="config, checkpoint, curve.csv and model.pt go here")
    for f in fields(FitConfig):
        parser.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
    args = parser.parse_args(argv)
    config = FitConfig(**{f.name: getattr(args, f.name) for f in fields(FitConfig)})
    if config.label_set not in PRESETS:
        parser.error(f"--label-set is one of {', '.join(PRESETS)}")
    run = FitRun(config, args.workdir)
    run.run(log=lambda s: print(s, flush=True))
    return 0
