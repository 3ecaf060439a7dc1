"""Issue 32: the nets on an accelerator, ready for the day one is lent (runs on the CPU too, for its tests).

    .venv/bin/python bench/gpu.py                      # CUDA when present, else the CPU
    .venv/bin/python bench/gpu.py --device cpu --batches 1024,4096 --trials 1000

- **Evaluations per second** of the shipped model's nets in PyTorch on ``--device`` at batch sizes
  1k to 64k (``--batches``): random contact positions encoded on the CPU, the forward pass on the
  device (synchronised), and the whole path (encoding, transfer, forward, back to numpy) timed apart;
  beside them the CPU kernels in this run (the float C kernel and the quantised accumulator kernel, one
  thread) for the ratio.
- **A batched rollout** of ``--trials`` (10,000 by default) trials of the position after 3-1, 0 ply,
  variance reduction, every trial in lockstep so that each half-move is one batch for the device:
  trials per second, and the equity with its standard error (the same dice as on the CPU; values agree
  to float32 rounding).

``--json OUT`` writes the figures.  On a machine without CUDA it says so and measures the CPU, so the
script's code path is tested everywhere (``tests/eval/test_gpu_bench.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from pulvezar import Position, Rules
from pulvezar.eval.encoding import encode
from pulvezar.eval.evaluator import NetEvaluator, default_model_path
from pulvezar.rollouts.engine import rollout

RULES = Rules.international()
AFTER_31 = "sGfwATDgc/ABMA"


def contact_boards(n: int, seed: int) -> np.ndarray:
    """``n`` contact positions (side on roll) from random games."""
    rng = np.random.default_rng(seed)
    pos, out = Position.start(), []
    while len(out) < n:
        plays = RULES.legal_plays(pos, (int(rng.integers(1, 7)), int(rng.integers(1, 7))))
        after = plays[int(rng.integers(len(plays)))].position
        pos = after.swap() if RULES.game_result(after) is None else Position.start()
        if pos.is_contact():
            out.append(pos.board)
        else:
            pos = Position.start()
    return np.frombuffer(b"".join(out), dtype=np.uint8).reshape(-1, 50)


def evaluations(model: Path, device: str, batches: list[int], seconds: float) -> dict[str, Any]:
    import torch

    ev = NetEvaluator.load(model, device=device, quantised=False)
    net = ev.contact_net
    pool = contact_boards(max(batches), seed=1)
    out: dict[str, Any] = {}
    sync = torch.cuda.synchronize if ev.device.type == "cuda" else (lambda: None)
    for bs in batches:
        boards = pool[:bs]
        x = torch.from_numpy(encode(boards, ev.encoding_version)).to(ev.device)
        with torch.no_grad():
            net(x)  # warm-up
            sync()
            n, t = 0, time.perf_counter()
            while time.perf_counter() - t < seconds or n == 0:
                net(x)
                n += 1
            sync()
            forward = n * bs / (time.perf_counter() - t)
        n, t = 0, time.perf_counter()
        while time.perf_counter() - t < seconds or n == 0:
            with torch.no_grad():
                net(torch.from_numpy(encode(boards, ev.encoding_version)).to(ev.device)).cpu().numpy()
            n += 1
        whole = n * bs / (time.perf_counter() - t)
        out[str(bs)] = {"forward_per_s": forward, "whole_path_per_s": whole}
        print(f"  batch {bs:6d}: forward {forward:12.0f}/s   encode+transfer+forward+back {whole:12.0f}/s")
    cpu_f, cpu_q = NetEvaluator.load(model, quantised=False), NetEvaluator.load(model, quantised=True)
    boards = pool[: min(len(pool), 16384)]
    for name, cpu in (("cpu float kernel", cpu_f), ("cpu quantised kernel", cpu_q)):
        t = time.perf_counter()
        cpu.net_probabilities(cpu.contact_net, boards)
        rate = len(boards) / (time.perf_counter() - t)
        out[name] = rate
        print(f"  {name:24}: {rate:12.0f}/s (one thread)")
    return out


def batched_rollout(model: Path, device: str, trials: int) -> dict[str, Any]:
    ev = NetEvaluator.load(model, device=device, quantised=False)
    pos = Position.from_position_id(AFTER_31)
    t = time.perf_counter()
    r = rollout(pos, trials=trials, evaluator=ev, rules=RULES, seed=1, luck="full")
    dt = time.perf_counter() - t
    eq, se = r.equity, r.equity_se
    print(f"  {trials} trials in {dt:.1f} s: {trials / dt:.0f} trials/s; equity {eq:+.4f} +- {se:.4f} (1 SE)")
    return {"trials": trials, "seconds": dt, "trials_per_s": trials / dt, "equity": eq, "se": se}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--device", default=None, help="torch device (default: cuda when present, else cpu)")
    ap.add_argument("--model", default=None, help="model file (default: the shipped one)")
    ap.add_argument("--batches", default="1024,4096,16384,65536")
    ap.add_argument("--seconds", type=float, default=2.0, help="per batch size")
    ap.add_argument("--trials", type=int, default=10_000)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        ap.error("no CUDA device here: run with --device cpu")
    name = torch.cuda.get_device_name(0) if device.startswith("cuda") else platform.processor() or "cpu"
    model = Path(args.model) if args.model else default_model_path()
    print(f"date {date.today()}  machine {platform.node()} nproc={os.cpu_count()}  device {device} ({name})")
    if device == "cpu":
        print("  (no accelerator: the CPU runs the device path, as the tests do)")
    print(f"model {model.name}\nevaluations per second, contact net:")
    results: dict[str, Any] = {"device": device, "device_name": name, "model": model.name}
    results["evaluations"] = evaluations(
        model, device, [int(b) for b in args.batches.split(",")], args.seconds
    )
    print(f"batched rollout, position after 3-1 ({AFTER_31}), 0 ply, variance reduction:")
    results["rollout"] = batched_rollout(model, device, args.trials)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
