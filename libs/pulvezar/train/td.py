"""TD(lambda) self-play in batched lockstep games.

Many games advance together: each step rolls for every running game, collects
all their legal plays, evaluates every resulting position in one batch and
lets each game take its best play (0-ply, greedy; the dice explore).  When a
game ends, the lambda-returns of its positions are computed backwards from the
values seen during play (forward-view TD(lambda)):

``G_T = outcome``; ``G_t = (1 - lambda) * v_t + lambda * flip(G_{t+1})``,
with ``v_t`` the value of the position after the play, seen from the mover.

The returns train the contact and race nets (Adam, binary cross-entropy on
the five probabilities) in minibatches.  Bear-off races and finished games are
exact and not trained.  Runs are deterministic per seed and resumable from a
checkpoint.
"""

from __future__ import annotations

import csv
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from pulvezar.eval.bearoff import OneSidedBearoff
from pulvezar.eval.encoding import ENCODING_VERSION, FEATURES_BY_VERSION, contact, encode
from pulvezar.eval.evaluator import BearoffRaces, NetEvaluator, equity, flip, swap_boards
from pulvezar.eval.nets import ValueNet
from pulvezar.rules import _kernel
from pulvezar.rules.position import Position

REC = _kernel.REC
START = np.frombuffer(Position.start().board, dtype=np.uint8)


@dataclass
class TDConfig:
    """Settings of one training run (stored in checkpoints and model files)."""

    seed: int = 1
    games: int = 20_000  # total self-play games of the run
    lockstep: int = 256  # games that advance together
    lam: float = 0.7
    lr: float = 1e-3
    batch: int = 512  # minibatch size
    train_every: int = 16_384  # positions collected between training passes
    epochs: int = 1  # passes over each collection
    contact_hidden: int = 128
    race_hidden: int = 64
    checkpoint_every: int = 2_000  # games
    snapshot_every: int = 50_000  # games; a model file per snapshot for learning curves
    threads: int = 1
    encoding_version: int = ENCODING_VERSION


@dataclass
class TDState:
    games_done: int = 0
    positions_trained: int = 0
    curve: list[dict[str, float]] = field(default_factory=list)
    lr_changes: list[tuple[int, float]] = field(default_factory=list)  # (games done, new rate)
    widenings: list[tuple[int, int]] = field(default_factory=list)  # (games done, new contact width)


class TDTrainer:
    """Self-play and learning, with checkpoints in ``workdir``."""

    def __init__(self, config: TDConfig, workdir: str | Path, bearoff: OneSidedBearoff | None = None):
        self.config = config
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        torch.manual_seed(config.seed)
        torch.set_num_threads(config.threads)
        features = FEATURES_BY_VERSION[config.encoding_version]
        self.contact_net = ValueNet(config.contact_hidden, features=features)
        self.race_net = ValueNet(config.race_hidden, features=features)
        self.evaluator = NetEvaluator(
            self.contact_net, self.race_net, bearoff, device="cpu", encoding_version=config.encoding_version
        )
        self.races = BearoffRaces.covers
        params = list(self.contact_net.parameters()) + list(self.race_net.parameters())
        self.optimizer = torch.optim.Adam(params, lr=config.lr)
        self.rng = np.random.default_rng(config.seed)
        self.state = TDState()
        self._xs: list[npt.NDArray[np.uint8]] = []
        self._ys: list[npt.NDArray[np.float64]] = []
        self._pending = 0
        self._losses: list[float] = []

    # ---- checkpoints -----------------------------------------------------
    @property
    def checkpoint_path(self) -> Path:
        return self.workdir / "checkpoint.pt"

    def save_checkpoint(self) -> None:
        blob = {
            "config": asdict(self.config),
            "state": asdict(self.state),
            "contact": self.contact_net.state_dict(),
            "race": self.race_net.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "rng": self.rng.bit_generator.state,
            "torch_rng": torch.get_rng_state(),
        }
        tmp = self.checkpoint_path.with_suffix(".tmp")
        torch.save(blob, tmp)
        os.replace(tmp, self.checkpoint_path)

    @staticmethod
    def saved_config(workdir: str | Path) -> TDConfig | None:
        """The configuration stored in ``workdir``'s checkpoint, if there is one."""
        path = Path(workdir) / "checkpoint.pt"
        if not path.exists():
            return None
        blob = torch.load(path, map_location="cpu", weights_only=False)
        saved = blob["config"]
        if "encoding_version" not in saved:  # older checkpoints: read it off the first layer
            width = blob["contact"]["body.0.weight"].shape[1]
            saved["encoding_version"] = next(v for v, n in FEATURES_BY_VERSION.items() if n == width)
        known = {f.name for f in fields(TDConfig)}
        return TDConfig(**{k: v for k, v in saved.items() if k in known})

    def resume(self) -> bool:
        """Continue from the checkpoint in ``workdir`` if there is one."""
        if not self.checkpoint_path.exists():
            return False
        blob = torch.load(self.checkpoint_path, map_location="cpu", weights_only=False)
        self.contact_net.load_state_dict(blob["contact"])
        self.race_net.load_state_dict(blob["race"])
        self.optimizer.load_state_dict(blob["optimizer"])
        self.rng.bit_generator.state = blob["rng"]
        torch.set_rng_state(blob["torch_rng"])
        st = blob["state"]
        changes = [(int(g), float(r)) for g, r in st.get("lr_changes", [])]
        widenings = [(int(g), int(h)) for g, h in st.get("widenings", [])]
        self.state = TDState(st["games_done"], st["positions_trained"], st["curve"], changes, widenings)
        return True

    def widen_contact(self, hidden: int) -> None:
        """Give the contact net ``hidden`` units, keeping what it computes (function-preserving).

        The new units get freshly initialised input weights and zero output
        weights, so the net's values are unchanged until training moves them.
        The optimiser starts afresh; the change is recorded in the checkpoint.
        """
        old = self.contact_net
        if hidden <= old.hidden or old.layers != 1:
            raise ValueError(f"can only widen a one-layer net beyond {old.hidden} units")
        new = ValueNet(hidden, features=old.features)
        first, first_old = new.body[0], old.body[0]
        assert isinstance(first, torch.nn.Linear) and isinstance(first_old, torch.nn.Linear)
        with torch.no_grad():
            first.weight[: old.hidden] = first_old.weight
            first.bias[: old.hidden] = first_old.bias
            new.head.weight.zero_()
            new.head.weight[:, : old.hidden] = old.head.weight
            new.head.bias.copy_(old.head.bias)
        self.contact_net = self.evaluator.contact_net = new.eval()
        params = list(self.contact_net.parameters()) + list(self.race_net.parameters())
        self.optimizer = torch.optim.Adam(params, lr=self.config.lr)
        self.config.contact_hidden = hidden
        self.state.widenings.append((self.state.games_done, hidden))

    def set_lr(self, lr: float) -> None:
        """Change the learning rate of a (resumed) run from here on; recorded in the checkpoint."""
        if lr == self.config.lr:
            return
        self.config.lr = lr
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.state.lr_changes.append((self.state.games_done, lr))

    # ---- self-play -------------------------------------------------------
    def _choose(
        self, boards: npt.NDArray[np.uint8], dice: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
        """Best play of every game: next boards (opponent on roll), their values, game over."""
        gen = _kernel.generate
        recs = [gen(b.tobytes(), int(d[0]), int(d[1]), 0) for b, d in zip(boards, dice, strict=True)]
        counts = np.fromiter((len(r) // REC for r in recs), dtype=np.intp, count=len(recs))
        results = np.frombuffer(b"".join(recs), dtype=np.uint8).reshape(-1, REC)[:, :50]
        after = swap_boards(results)
        probs = self.evaluator.evaluate_boards(after)  # opponent on roll
        mover_eq = equity(flip(probs))
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        seg = np.repeat(np.arange(len(recs)), counts)
        best_eq = np.maximum.reduceat(mover_eq, starts)
        is_best = mover_eq >= best_eq[seg] - 1e-12
        first = np.full(len(recs), len(mover_eq), dtype=np.intp)  # first best candidate per game
        np.minimum.at(first, seg[is_best], np.flatnonzero(is_best))
        over = after[first, 25:].sum(axis=1) == 0  # the mover bore off the last checker
        return after[first], probs[first], over

    def play_games(self, n_games: int) -> int:
        """Play ``n_games`` self-play games in lockstep, training as data comes in; returns positions."""
        cfg = self.config
        lanes = min(cfg.lockstep, n_games)
        boards = np.tile(START, (lanes, 1))
        traj_boards: list[list[npt.NDArray[np.uint8]]] = [[] for _ in range(lanes)]
        traj_values: list[list[npt.NDArray[np.float64]]] = [[] for _ in range(lanes)]
        first_move = np.ones(lanes, dtype=bool)
        started, finished, positions = lanes, 0, 0
        active = np.ones(lanes, dtype=bool)
        while finished < n_games:
            ids = np.flatnonzero(active)
            dice = self.rng.integers(1, 7, size=(len(ids), 2))
            # the opening roll is never a double
            for k, lane in enumerate(ids):
                while first_move[lane] and dice[k, 0] == dice[k, 1]:
                    dice[k] = self.rng.integers(1, 7, size=2)
            nxt, values, over = self._choose(boards[ids], dice)
            mover_values = flip(values)  # the mover's view of the position after its play
            for k, lane in enumerate(ids):
                traj_boards[lane].append(boards[lane].copy())
                traj_values[lane].append(mover_values[k])
                first_move[lane] = False
                if over[k]:
                    positions += self._finish(traj_boards[lane], traj_values[lane])
                    finished += 1
                    traj_boards[lane], traj_values[lane] = [], []
                    if started < n_games:
                        started += 1
                        boards[lane] = START
                        first_move[lane] = True
                    else:
                        active[lane] = False
                else:
                    boards[lane] = nxt[k]
            if self._pending >= cfg.train_every:
                self._train()
        if self._pending:  # nothing is carried over a checkpoint: resuming is exact
            self._train()
        self.state.games_done += n_games
        return positions

    def _finish(self, states: list[npt.NDArray[np.uint8]], values: list[npt.NDArray[np.float64]]) -> int:
        lam = self.config.lam
        vs = np.stack(values)
        ys = np.empty_like(vs)
        g = vs[-1]  # exact outcome of the last play
        ys[-1] = g
        swap = [3, 4, 1, 2]  # flip(): win <-> lose, gammons exchanged
        for t in range(len(vs) - 2, -1, -1):
            f = np.empty(5)
            f[0] = 1.0 - g[0]
            f[1:] = g[swap]
            g = (1.0 - lam) * vs[t] + lam * f
            ys[t] = g
        xs = np.stack(states)
        keep = ~BearoffRaces.covers(xs)
        self._xs.append(xs[keep])
        self._ys.append(ys[keep])
        self._pending += int(keep.sum())
        return int(keep.sum())

    # ---- learning --------------------------------------------------------
    def _train(self) -> None:
        xs = np.concatenate(self._xs)
        ys = np.concatenate(self._ys)
        self._xs, self._ys, self._pending = [], [], 0
        is_contact = contact(xs)
        feats = torch.from_numpy(encode(xs, self.config.encoding_version))
        targets = torch.from_numpy(ys.astype(np.float32)).clamp(0.0, 1.0)
        loss_fn = torch.nn.BCELoss()
        for net, mask in ((self.contact_net, is_contact), (self.race_net, ~is_contact)):
            idx = np.flatnonzero(mask)
            if len(idx) == 0:
                continue
            net.train()
            for _ in range(self.config.epochs):
                order = self.rng.permutation(idx)
                for s in range(0, len(order), self.config.batch):
                    b = torch.from_numpy(order[s : s + self.config.batch])
                    pred = net(feats[b]).clamp(1e-6, 1 - 1e-6)
                    loss = loss_fn(pred, targets[b])
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
                    self._losses.append(loss.item())
            net.eval()
        self.state.positions_trained += len(xs)

    # ---- the run ---------------------------------------------------------
    def run(self, log: Any = print, progress: Callable[[int, int], None] | None = None) -> None:
        """Play and learn until ``config.games``, checkpointing as it goes;
        ``progress(games_done, games)`` after each checkpoint."""
        cfg = self.config
        curve_path = self.workdir / "curve.csv"
        while self.state.games_done < cfg.games:
            chunk = min(cfg.checkpoint_every, cfg.games - self.state.games_done)
            t0 = time.perf_counter()
            self.play_games(chunk)
            dt = time.perf_counter() - t0
            loss = float(np.mean(self._losses[-200:])) if self._losses else float("nan")
            row = {
                "games": float(self.state.games_done),
                "positions_trained": float(self.state.positions_trained),
                "loss": loss,
                "games_per_s": chunk / dt,
            }
            self.state.curve.append(row)
            self.save_checkpoint()
            new = not curve_path.exists()
            with curve_path.open("a", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(row))
                if new:
                    w.writeheader()
                w.writerow(row)
            if self.state.games_done % cfg.snapshot_every == 0 or self.state.games_done >= cfg.games:
                snap = self.workdir / "snapshots" / f"games-{self.state.games_done:09d}.pt"
                self.export(snap, self.workdir.name)
            log(
                f"games {self.state.games_done:>8}  loss {loss:.4f}  "
                f"{row['games_per_s']:.1f} games/s  trained {self.state.positions_trained}"
            )
            if progress is not None:
                progress(self.state.games_done, cfg.games)

    def export(self, path: str | Path, run_name: str) -> None:
        """Write the current nets as a model file with metadata."""
        run = {"name": run_name, "method": "td-lambda self-play", **asdict(self.config)}
        run["games_done"] = self.state.games_done
        run["lr_changes"] = [list(c) for c in self.state.lr_changes]
        run["widenings"] = [list(w) for w in self.state.widenings]
        self.evaluator.save(path, run)
