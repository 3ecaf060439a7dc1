"""Supervised generations on rollout targets: the second stage of training.

Each generation ``g`` starts from the nets of generation ``g - 1`` (generation 0
is the net the run starts from, e.g. a TD(lambda) checkpoint) and

1. **samples positions** from lockstep self-play games of the current net, with
   exploration (a fraction of uniformly random plays), keeping a random share of
   the positions visited (player on roll, before the roll), with quotas for
   contact and race positions, dropping exact ones (bear-off races, finished
   games) and duplicates (also of earlier generations); a share is held out;
2. computes **targets**: each position is rolled out by pulvezar's rollout engine
   (:func:`pulvezar.rollouts.rollout`: variance reduction, truncation with leaves
   valued by the current net, exact bear-off stops), position ``k`` taking trials
   ``k * trials ..`` of the generation's seed, so every position gets its own
   stratified dice; the mean is projected onto consistent probabilities
   (``P(wbg) <= P(wg) <= P(w)``, ``P(lbg) <= P(lg) <= 1 - P(w)``);
3. **trains** the contact and race nets from the current weights on these targets
   (plus the training data of up to ``replay`` earlier generations) with Adam and
   binary cross-entropy, keeping the weights of the epoch with the best held-out
   loss (early stopping).

Every step is checkpointed in the run's directory: ``gen-NNN/positions.npz``,
``gen-NNN/targets.npz`` (saved every ``chunk`` positions, so an interrupted
target computation continues where it stopped), ``gen-NNN/model.pt`` (a model
file with metadata) and ``gen-NNN/train.json``; one row per generation goes to
``generations.csv``.  A run is deterministic per seed (per device: CUDA kernels
differ from CPU ones in the last bits) and a resumed run gives the same bits as
an uninterrupted one.  Playing strength per generation is measured outside the
library (``bench/generations.py``).
"""

from __future__ import annotations

import csv
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

from pulvezar.eval.encoding import FEATURES_BY_VERSION, contact, encode
from pulvezar.eval.evaluator import BearoffRaces, NetEvaluator, equity, flip, swap_boards, terminal
from pulvezar.eval.nets import ValueNet
from pulvezar.rollouts.engine import rollout
from pulvezar.rules import _kernel
from pulvezar.rules.position import Position

Boards = npt.NDArray[np.uint8]
Probs = npt.NDArray[np.float64]
Log = Callable[[str], None]

START = np.frombuffer(Position.start().board, dtype=np.uint8)
CONFIG_FILE = "config.json"
CSV_FILE = "generations.csv"


@dataclass
class SupervisedConfig:
    """Settings of a run of supervised generations (stored in the run and in model files)."""

    seed: int = 1
    generations: int = 1  # total generations of the run
    positions: int = 4_000  # new positions per generation
    holdout: float = 0.1  # share of each generation's positions kept out of training
    race_fraction: float = 0.25  # share of race (no contact) positions
    explore: float = 0.1  # probability of a uniformly random play in the sampling games
    keep: float = 0.25  # probability that a visited position is a candidate
    lockstep: int = 128  # sampling games that advance together
    trials: int = 36  # rollout trials per position
    truncate: int = 9  # half-moves before a trial is valued by the net
    rollout_ply: int = 0  # search depth of the rollouts' move choice
    chunk: int = 64  # positions between checkpoints of the targets
    lr: float = 1e-4
    batch: int = 128
    epochs: int = 40
    patience: int = 6  # epochs without a better held-out loss before training stops
    replay: int = 2  # earlier generations whose training data joins the current one
    threads: int = 1
    device: str = "auto"  # "auto": CUDA when torch.cuda.is_available(), else CPU


def resolve_device(name: str) -> torch.device:
    """``"auto"`` is CUDA when present, else CPU; other names as torch reads them."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def _seed(*words: int) -> int:
    """A 63-bit seed derived from ``words`` (run seed, generation, purpose)."""
    return int(np.random.SeedSequence(list(words)).generate_state(1, np.uint64)[0] >> np.uint64(1))


def load_nets(path: str | Path) -> tuple[ValueNet, ValueNet, int, dict[str, Any]]:
    """Contact and race nets, encoding version and provenance of a model file or a TD checkpoint.

    Only those two: a model file's crashed net (:attr:`NetEvaluator.crashed_net`), if it has one, is
    not returned; the supervised generations here train two nets and value crashed positions with
    the contact net.
    """
    path = Path(path)
    blob = torch.load(path, map_location="cpu", weights_only=False)
    if "contact" in blob and "config" in blob["contact"]:  # a model file (NetEvaluator.save)
        ev = NetEvaluator.load(path, device="cpu")
        info: dict[str, Any] = {"source": str(path)}
        if ev.info is not None:
            info.update(sha256=ev.info.sha256, run=ev.info.run)
        return ev.contact_net, ev.race_net, ev.encoding_version, info
    from pulvezar.train.td import TDConfig  # a TD(lambda) checkpoint

    cfg = TDConfig(**{k: v for k, v in blob["config"].items() if k in {f.name for f in fields(TDConfig)}})
    feats = FEATURES_BY_VERSION[cfg.encoding_version]
    c, r = ValueNet(cfg.contact_hidden, features=feats), ValueNet(cfg.race_hidden, features=feats)
    c.load_state_dict(blob["contact"])
    r.load_state_dict(blob["race"])
    run = {"method": "td-lambda self-play", "games_done": blob["state"]["games_done"], **asdict(cfg)}
    return c.eval(), r.eval(), cfg.encoding_version, {"source": str(path), "run": run}


def consistent(probs: Probs) -> Probs:
    """Project mean rollout values onto consistent probabilities (clip in order: w, wg, wbg, lg, lbg)."""
    p = np.asarray(probs, dtype=np.float64).reshape(-1, 5)
    out = np.empty_like(p)
    out[:, 0] = np.clip(p[:, 0], 0.0, 1.0)
    out[:, 1] = np.clip(p[:, 1], 0.0, out[:, 0])
    out[:, 2] = np.clip(p[:, 2], 0.0, out[:, 1])
    out[:, 3] = np.clip(p[:, 3], 0.0, 1.0 - out[:, 0])
    out[:, 4] = np.clip(p[:, 4], 0.0, out[:, 3])
    return out


def _atomic_savez(path: Path, **arrays: Any) -> None:
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **arrays)
    os.replace(tmp, path)


def _atomic_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def sample_positions(
    evaluator: NetEvaluator,
    n: int,
    rng: np.random.Generator,
    *,
    race_fraction: float = 0.25,
    explore: float = 0.1,
    keep: float = 0.25,
    lockstep: int = 128,
    exclude: set[bytes] | None = None,
    max_steps: int = 100_000,
) -> Boards:
    """``n`` distinct positions (player on roll) from lockstep self-play of ``evaluator``.

    Each game plays its 0-ply best play, or with probability ``explore`` a
    uniformly random legal play; each visited position is a candidate with
    probability ``keep``.  Finished games and bear-off races (exact in the
    evaluator) are never taken, nor boards in ``exclude``; about
    ``race_fraction`` of the positions are races, the rest contact positions
    (a quota that cannot be filled within ``max_steps`` half-moves is given to
    the other class).
    """
    n_race = round(n * race_fraction)
    quota = {True: n - n_race, False: n_race}  # keyed by contact
    seen = set(exclude or ())
    taken: list[bytes] = []
    lanes = max(1, lockstep)
    boards = np.tile(START, (lanes, 1))
    first = np.ones(lanes, dtype=bool)
    gen, rec = _kernel.generate, _kernel.REC
    for _ in range(max_steps):
        if quota[True] + quota[False] == 0:
            break
        # candidates: the positions on roll now
        pick = rng.random(lanes) < keep
        is_contact = contact(boards)
        exact = BearoffRaces.covers(boards)
        for i in np.flatnonzero(pick & ~exact):
            key = boards[i].tobytes()
            c = bool(is_contact[i])
            if quota[c] > 0 and key not in seen:
                seen.add(key)
                taken.append(key)
                quota[c] -= 1
        dice = rng.integers(1, 7, size=(lanes, 2))
        for i in np.flatnonzero(first & (dice[:, 0] == dice[:, 1])):  # no double opens a game
            while dice[i, 0] == dice[i, 1]:
                dice[i] = rng.integers(1, 7, size=2)
        recs = [gen(b.tobytes(), int(d[0]), int(d[1]), 0) for b, d in zip(boards, dice, strict=True)]
        counts = np.fromiter((len(r) // rec for r in recs), dtype=np.intp, count=lanes)
        after = swap_boards(np.frombuffer(b"".join(recs), dtype=np.uint8).reshape(-1, rec)[:, :50])
        eq = equity(flip(evaluator.evaluate_boards(after)))
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        seg = np.repeat(np.arange(lanes), counts)
        best = np.maximum.reduceat(eq, starts)
        chosen = np.full(lanes, len(eq), dtype=np.intp)
        np.minimum.at(chosen, seg[eq >= best[seg] - 1e-12], np.flatnonzero(eq >= best[seg] - 1e-12))
        wild = rng.random(lanes) < explore
        offsets = (rng.random(lanes) * counts).astype(np.intp)
        chosen = np.where(wild, starts + offsets, chosen)
        boards = np.ascontiguousarray(after[chosen])
        first[:] = False
        over = terminal(boards)[0]
        boards[over] = START
        first[over] = True
    spare = quota[True] + quota[False]
    if spare:
        raise RuntimeError(f"could not sample {n} positions ({spare} short) in {max_steps} half-moves")
    return np.frombuffer(b"".join(taken), dtype=np.uint8).reshape(-1, 50).copy()


def rollout_targets(
    evaluator: NetEvaluator,
    boards: Boards,
    *,
    seed: int,
    trials: int,
    truncate: int | None,
    first_index: int = 0,
    ply: int = 0,
) -> tuple[Probs, Probs, npt.NDArray[np.float64]]:
    """Rollout targets of ``boards``: consistent probabilities, raw means and equity standard errors.

    Board ``k`` (numbered from ``first_index``) is rolled out with trials
    ``k * trials .. (k + 1) * trials - 1`` of ``seed``, one rollout call each,
    so a target does not depend on which other boards are computed with it.
    """
    raw = np.zeros((len(boards), 5))
    se = np.zeros(len(boards))
    for j, b in enumerate(boards):
        r = rollout(
            Position.from_board(b.tobytes()),
            trials=trials,
            ply=ply,
            seed=seed,
            truncate=truncate,
            evaluator=evaluator,
            first_trial=(first_index + j) * trials,
        )
        raw[j] = r.probabilities
        se[j] = r.equity_se
    return consistent(raw), raw, se


def bce(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Binary cross-entropy of five probabilities (mean over outputs and positions)."""
    p = pred.clamp(1e-6, 1 - 1e-6)
    return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()


class SupervisedRun:
    """A run of supervised generations in ``workdir`` (see the module docstring)."""

    def __init__(self, config: SupervisedConfig, workdir: str | Path) -> None:
        self.config = config
        self.workdir = Path(workdir)
        self.device = resolve_device(config.device)

    # ---- files -----------------------------------------------------------
    def gen_dir(self, g: int) -> Path:
        return self.workdir / f"gen-{g:03d}"

    def model_path(self, g: int) -> Path:
        return self.gen_dir(g) / "model.pt"

    @staticmethod
    def saved_config(workdir: str | Path) -> SupervisedConfig | None:
        """The configuration a run in ``workdir`` was started with, if any."""
        path = Path(workdir) / CONFIG_FILE
        if not path.exists():
            return None
        saved = json.loads(path.read_text())
        known = {f.name for f in fields(SupervisedConfig)}
        return SupervisedConfig(**{k: v for k, v in saved.items() if k in known})

    def start(self, init: str | Path, name: str = "sup") -> None:
        """Write the configuration and generation 0 (the nets of ``init``: model file or TD checkpoint)."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        if not (self.workdir / CONFIG_FILE).exists():
            _atomic_text(self.workdir / CONFIG_FILE, json.dumps(asdict(self.config), indent=2) + "\n")
        if self.model_path(0).exists():
            return
        c, r, version, info = load_nets(init)
        ev = NetEvaluator(c, r, device="cpu", encoding_version=version)
        run = {"name": name, "method": "start of supervised generations", "generation": 0, "init": info}
        ev.save(self.model_path(0), run)

    def generations_done(self) -> int:
        g = 0
        while self.model_path(g + 1).exists():
            g += 1
        return g

    def evaluator(self, g: int) -> NetEvaluator:
        return NetEvaluator.load(self.model_path(g), device=self.device)

    # ---- the steps -------------------------------------------------------
    def positions(self, g: int, log: Log = print) -> tuple[Boards, npt.NDArray[np.bool_]]:
        """Step 1: generation ``g``'s positions and held-out mask (sampled once, then read back)."""
        path = self.gen_dir(g) / "positions.npz"
        if path.exists():
            with np.load(path) as f:
                return f["boards"], f["holdout"]
        cfg = self.config
        t0 = time.perf_counter()
        exclude: set[bytes] = set()
        for h in range(1, g):
            exclude.update(b.tobytes() for b in self.positions(h, log)[0])
        rng = np.random.default_rng(_seed(cfg.seed, g, 1))
        boards = sample_positions(
            self.evaluator(g - 1),
            cfg.positions,
            rng,
            race_fraction=cfg.race_fraction,
            explore=cfg.explore,
            keep=cfg.keep,
            lockstep=cfg.lockstep,
            exclude=exclude,
        )
        boards = boards[rng.permutation(len(boards))]  # contact and race positions interleaved
        holdout = np.zeros(len(boards), dtype=bool)
        holdout[rng.permutation(len(boards))[: round(cfg.holdout * len(boards))]] = True
        self.gen_dir(g).mkdir(parents=True, exist_ok=True)
        _atomic_savez(path, boards=boards, holdout=holdout, seconds=np.float64(time.perf_counter() - t0))
        log(f"gen {g}: sampled {len(boards)} positions ({int(contact(boards).sum())} contact)")
        return boards, holdout

    def targets(self, g: int, log: Log = print, stop_after: int | None = None) -> Probs | None:
        """Step 2: rollout targets of generation ``g``, computed chunk by chunk and saved after each.

        Returns ``None`` when ``stop_after`` chunks were computed in this call and
        targets remain (used to test resumption), else the ``(N, 5)`` targets.
        """
        cfg = self.config
        boards, _ = self.positions(g, log)
        path = self.gen_dir(g) / "targets.npz"
        probs, raw, se = np.zeros((0, 5)), np.zeros((0, 5)), np.zeros(0)
        seconds = 0.0
        if path.exists():
            with np.load(path) as f:
                probs, raw, se, seconds = f["probs"], f["raw"], f["se"], float(f["seconds"])
        if len(probs) >= len(boards):
            return probs
        ev = self.evaluator(g - 1)
        seed = _seed(cfg.seed, g, 2)
        done_chunks = 0
        while len(probs) < len(boards):
            if stop_after is not None and done_chunks >= stop_after:
                return None
            k = len(probs)
            t0 = time.perf_counter()
            p, r, s = rollout_targets(
                ev,
                boards[k : k + cfg.chunk],
                seed=seed,
                trials=cfg.trials,
                truncate=cfg.truncate if cfg.truncate > 0 else None,
                first_index=k,
                ply=cfg.rollout_ply,
            )
            dt = time.perf_counter() - t0
            seconds += dt
            probs, raw, se = np.concatenate([probs, p]), np.concatenate([raw, r]), np.concatenate([se, s])
            _atomic_savez(path, probs=probs, raw=raw, se=se, seconds=np.float64(seconds))
            done_chunks += 1
            log(
                f"gen {g}: targets {len(probs)}/{len(boards)}  {len(p) / dt:.2f} positions/s  "
                f"mean equity se {float(se.mean()):.4f}"
            )
        return probs

    def _data(self, g: int) -> tuple[Boards, Probs, Boards, Probs]:
        """Training boards and targets (generation ``g`` plus replay), held-out boards and targets."""
        boards, holdout = self.positions(g)
        probs = self.targets(g)
        assert probs is not None
        xs, ys = [boards[~holdout]], [probs[~holdout]]
        for h in range(max(1, g - self.config.replay), g):
            b, ho = self.positions(h)
            p = self.targets(h)
            assert p is not None
            xs.append(b[~ho])
            ys.append(p[~ho])
        return np.concatenate(xs), np.concatenate(ys), boards[holdout], probs[holdout]

    def train(self, g: int, log: Log = print) -> dict[str, Any]:
        """Step 3: train generation ``g - 1``'s nets on the targets; writes ``gen-g/model.pt``."""
        cfg = self.config
        if self.model_path(g).exists():
            summary: dict[str, Any] = json.loads((self.gen_dir(g) / "train.json").read_text())
            return summary
        t0 = time.perf_counter()
        torch.manual_seed(_seed(cfg.seed, g, 3))
        rng = np.random.default_rng(_seed(cfg.seed, g, 4))
        ev = self.evaluator(g - 1)
        xs, ys, hx, hy = self._data(g)
        summary = {"generation": g, "train_positions": len(xs), "holdout_positions": len(hx), "nets": {}}
        for name, net, is_contact in (("contact", ev.contact_net, True), ("race", ev.race_net, False)):
            mask, hmask = contact(xs) == is_contact, contact(hx) == is_contact
            summary["nets"][name] = self._fit(
                net, xs[mask], ys[mask], hx[hmask], hy[hmask], ev, rng, name, log
            )
        # whole held-out set through the evaluator (bear-off and class routing included)
        summary["holdout_equity_rmse_before"] = _equity_rmse(self.evaluator(g - 1), hx, hy)
        summary["holdout_equity_rmse_after"] = _equity_rmse(ev, hx, hy)
        summary["holdout_loss_before"] = _bce_np(self.evaluator(g - 1).evaluate_boards(hx), hy)
        summary["holdout_loss_after"] = _bce_np(ev.evaluate_boards(hx), hy)
        summary["seconds"] = time.perf_counter() - t0
        parent = self.evaluator(g - 1).info
        run = {
            "name": self.workdir.resolve().name,
            "method": "supervised on pulvezar rollout targets",
            "generation": g,
            "parent_sha256": parent.sha256 if parent else None,
            **asdict(self.config),
            "holdout_loss": summary["holdout_loss_after"],
        }
        ev.contact_net.cpu()
        ev.race_net.cpu()
        _atomic_text(self.gen_dir(g) / "train.json", json.dumps(summary, indent=2) + "\n")
        ev.save(self.model_path(g), run)
        return summary

    def _fit(
        self,
        net: ValueNet,
        xs: Boards,
        ys: Probs,
        hx: Boards,
        hy: Probs,
        ev: NetEvaluator,
        rng: np.random.Generator,
        name: str,
        log: Log,
    ) -> dict[str, Any]:
        cfg = self.config
        dev = self.device
        x = torch.from_numpy(_encode(xs, ev.encoding_version)).to(dev)
        y = torch.from_numpy(ys.astype(np.float32)).to(dev)
        hxt = torch.from_numpy(_encode(hx, ev.encoding_version)).to(dev)
        hyt = torch.from_numpy(hy.astype(np.float32)).to(dev)
        net.to(dev)

        def held() -> float:
            if len(hxt) == 0:
                return float("nan")
            net.eval()
            with torch.no_grad():
                return float(bce(net(hxt), hyt))

        history: list[dict[str, float]] = [{"epoch": 0, "train": float("nan"), "holdout": held()}]
        if len(x) == 0:
            return {"positions": 0, "history": history, "best_epoch": 0}
        opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
        best, best_epoch = history[0]["holdout"], 0
        best_state = {k: v.detach().clone() for k, v in net.state_dict().items()}
        for epoch in range(1, cfg.epochs + 1):
            net.train()
            order = torch.from_numpy(rng.permutation(len(x))).to(dev)
            losses = []
            for s in range(0, len(order), cfg.batch):
                b = order[s : s + cfg.batch]
                loss = bce(net(x[b]), y[b])
                opt.zero_grad()
                torch.autograd.backward(loss)
                opt.step()
                losses.append(loss.item())
            h = held()
            history.append({"epoch": epoch, "train": float(np.mean(losses)), "holdout": h})
            if not h >= best:  # also when there is no held-out set (nan): keep the latest
                best, best_epoch = h, epoch
                best_state = {k: v.detach().clone() for k, v in net.state_dict().items()}
            elif epoch - best_epoch >= cfg.patience:
                break
        net.load_state_dict(best_state)
        net.eval()
        log(
            f"  {name}: {len(x)} positions, held-out loss {history[0]['holdout']:.5f} -> {best:.5f} "
            f"(epoch {best_epoch} of {len(history) - 1})"
        )
        return {"positions": len(x), "history": history, "best_epoch": best_epoch}

    # ---- the run ---------------------------------------------------------
    def run(self, log: Log = print, progress: Callable[[int, int], None] | None = None) -> None:
        """Run (or resume) generations until ``config.generations``; ``progress(generations_done,
        generations)`` after each one."""
        torch.set_num_threads(self.config.threads)
        for g in range(1, self.config.generations + 1):
            if self.model_path(g).exists():
                continue
            boards, _ = self.positions(g, log)
            self.targets(g, log)
            summary = self.train(g, log)
            self._write_row(g, boards, summary)
            s = summary
            log(
                f"gen {g}: held-out loss {s['holdout_loss_before']:.5f} -> {s['holdout_loss_after']:.5f}, "
                f"equity rmse {s['holdout_equity_rmse_before']:.4f} -> {s['holdout_equity_rmse_after']:.4f}"
            )
            if progress is not None:
                progress(g, self.config.generations)

    def _write_row(self, g: int, boards: Boards, summary: dict[str, Any]) -> None:
        cfg = self.config
        with np.load(self.gen_dir(g) / "positions.npz") as f:
            t_pos = float(f["seconds"])
        with np.load(self.gen_dir(g) / "targets.npz") as f:
            t_tgt = float(f["seconds"])
            se = float(f["se"].mean())
        row = {
            "generation": g,
            "positions": len(boards),
            "contact": int(contact(boards).sum()),
            "trials": cfg.trials,
            "truncate": cfg.truncate,
            "target_equity_se": round(se, 5),
            "train_positions": summary["train_positions"],
            "holdout_loss_before": round(summary["holdout_loss_before"], 6),
            "holdout_loss_after": round(summary["holdout_loss_after"], 6),
            "holdout_equity_rmse_before": round(summary["holdout_equity_rmse_before"], 5),
            "holdout_equity_rmse_after": round(summary["holdout_equity_rmse_after"], 5),
            "seconds_positions": round(t_pos, 1),
            "seconds_targets": round(t_tgt, 1),
            "seconds_train": round(summary["seconds"], 1),
        }
        path = self.workdir / CSV_FILE
        rows = list(csv.DictReader(path.open())) if path.exists() else []
        rows = [r for r in rows if int(r["generation"]) != g] + [{k: str(v) for k, v in row.items()}]
        rows.sort(key=lambda r: int(r["generation"]))
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(row))
            w.writeheader()
            w.writerows(rows)
        os.replace(tmp, path)


def _encode(boards: Boards, version: int) -> npt.NDArray[np.float32]:
    if len(boards) == 0:
        return np.zeros((0, FEATURES_BY_VERSION[version]), dtype=np.float32)
    return encode(boards, version)


def _bce_np(pred: Probs, target: Probs) -> float:
    if len(pred) == 0:
        return float("nan")
    return float(bce(torch.from_numpy(pred), torch.from_numpy(target)))


def _equity_rmse(ev: NetEvaluator, boards: Boards, target: Probs) -> float:
    if len(boards) == 0:
        return float("nan")
    return float(np.sqrt(np.mean((equity(ev.evaluate_boards(boards)) - equity(target)) ** 2)))
