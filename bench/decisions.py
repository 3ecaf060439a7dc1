"""Checker-play decisions judged by GNU Backgammon 2-ply: how much equity each engine loses per decision.

Issue 13's decision benchmark.  ``build`` plays seeded self-play games of gnubg-nn 0-ply (a uniformly
random legal play with probability ``--explore`` per move, so that less tidy positions occur too),
keeps decisions with a real choice (at least two distinct resulting positions) at random until each
class has its quota (gnubg's classes: contact, crashed, race; bear-offs of both sides home are left
out, pulvezar plays them from exact tables), and scores **every legal play** of each decision by the
judge, gnubg-nn at ``--judge-ply`` plies (also at 0 and 1 ply, to report gnubg's own plies).  The
set is written to an ``.npz`` (positions as GNU Backgammon's 10-byte Position ID keys, the rolls, the
resulting positions and their equities; the files hold outputs of running gnubg, not its data) and
is committed, so scoring a new net takes seconds:

    .venv/bin/python bench/decisions.py build --out data/decisions/gnubg2.npz   # ~1 CPU-hour (resumable)
    .venv/bin/python bench/decisions.py score data/decisions/gnubg2.npz --model MODEL [--model ...] [--ply 1]

``score`` prints per class and overall the mean loss per decision x 1000 (the judge's best equity
minus the judged equity of the engine's choice) with a 95% interval, and the share of blunders
(loss >= 0.08), for gnubg-nn at 0 and 1 ply and for each pulvezar model at 0 ply (and at ``--ply``
plies through :class:`pulvezar.search.plies.Search`), all on the same decisions.  The overall mean
weighs the classes by their shares in gnubg self-play (``class_share`` in the file), so that the
quotas do not tilt it.

Teachers and a second judge (issue 28, "choose teachers by measurement"):

    .venv/bin/python bench/decisions.py score --teachers --judge2 2000 --json bench/results/teachers-DATE.json

``--teachers`` scores every candidate teacher as a checker player (each picks the play whose resulting
position it values best for the mover): gnubg-nn 0/1/2 ply (2 ply is the judge of the file, so it is
reported under the second judge only), Open Sage (``bgsage``) 0 and 1 ply (``--sage-ply`` picks plies
alone; pulvezar's numbering, Open Sage's "1ply"/"2ply") and each ``--model`` (default: the shipped
net) at 0 and 1 ply.  Pulvezar's ``N``-ply value of a play is the opponent's board before its roll
valued at ``N`` plies (as the ``pulvezar-vK-Nply`` labels; before issue 28 ``--ply N`` valued it at
``N - 1``).  ``--judge2 N`` adds Open Sage 2-ply (its "3ply") as a judge that is not gnubg, on ``N``
decisions drawn by class in the set's proportions (``--judge2-seed``; a larger ``N`` extends a
smaller one's sample): for each decision it values the plays any scored teacher chose plus gnubg
2-ply's top 4, and a teacher's loss is the judge's best of those minus its value of the teacher's
play.  Its values are cached in ``data/decisions/sage2-judge.npz`` (``--judge2-file``; decision
indices, the plays' keys and the mover's equity: outputs of Open Sage, not its data), so a later run
values only the plays it has not seen.  ``--json`` writes every table (and a ``.csv`` beside it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from pulvezar.eval.evaluator import NetEvaluator, default_evaluator, equity, flip, swap_boards
from pulvezar.rules import _kernel
from pulvezar.train.corpus import (
    BEAROFF,
    CLASSES,
    CONTACT,
    CRASHED,
    RACE,
    START,
    boards_of_keys,
    classify,
    keys_of,
    read_npz,
    write_npz,
    write_text,
)

REC = _kernel.REC
QUOTAS = {CONTACT: 1200, CRASHED: 300, RACE: 500}


def results_of(board: np.ndarray, d1: int, d2: int) -> np.ndarray:
    """Distinct resulting boards of a roll, in the mover's view (the generator gives distinct ones)."""
    rec = _kernel.generate(board.tobytes(), d1, d2, 0)
    return np.frombuffer(rec, dtype=np.uint8).reshape(-1, REC)[:, :50].copy()


def gnubg_mover_equity(results: np.ndarray, ply: int) -> np.ndarray:
    """The mover's cubeless equity of resulting boards (mover's view) by gnubg-nn at ``ply``."""
    import gnubg_nn

    out = np.empty(len(results))
    for i, r in enumerate(results):
        mine, theirs = r[:25], r[25:]
        if not mine.any():  # the mover has borne off its last checker
            out[i] = won_equity(r)
            continue
        p = gnubg_nn.probabilities([mine.tolist(), theirs.tolist()], ply)  # the opponent on roll
        out[i] = -(2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4])
    return out


def won_equity(result: np.ndarray) -> float:
    """The mover's equity after bearing off its last checker: 1, 2 (gammon) or 3 (backgammon)."""
    theirs = result[25:]
    g = theirs.sum() == 15
    return float(1.0 + g + (g and theirs[18:].any()))


def sage_mover_equity(results: np.ndarray, level: str, chunk: int = 4096) -> np.ndarray:
    """The mover's cubeless equity of resulting boards (mover's view) by Open Sage at its ``level``.

    Open Sage's post-move evaluation values the board "from the perspective of the player who just
    moved", before the opponent rolls: the resulting board as it stands, in :func:`sage_board`'s
    layout (the mover's checkers positive), probabilities for the mover.  ``level`` is Open Sage's
    name: "1ply" is its raw net (pulvezar's and gnubg's 0 ply), "2ply" pulvezar's 1 ply, "3ply" 2 ply.
    One thread; the default move filter of its N-ply search (5 moves, 0.08).
    """
    from bgsage.batch import batch_post_move_evaluate  # a bench extra, not a runtime dependency

    from pulvezar.train.labels import sage_board

    out = np.empty(len(results))
    live = results[:, :25].any(axis=1)
    for i in np.flatnonzero(~live):
        out[i] = won_equity(results[i])
    idx = np.flatnonzero(live)
    for c0 in range(0, len(idx), chunk):
        part = idx[c0 : c0 + chunk]
        pos = [{"board": sage_board(results[i]), "cube_owner": "centered"} for i in part]
        got = batch_post_move_evaluate(pos, eval_level=level, n_threads=1)
        p = np.array([g.probs.to_list() for g in got], dtype=np.float64).reshape(-1, 5)
        out[part] = 2.0 * p[:, 0] - 1.0 + p[:, 1] - p[:, 3] + p[:, 2] - p[:, 4]
    return out


def net_mover_equity(net: NetEvaluator, results: np.ndarray) -> np.ndarray:
    return np.asarray(equity(flip(net.evaluate_boards(swap_boards(results)))))


# ---- build ------------------------------------------------------------------------------------------


def sample_decisions(
    seed: int, explore: float, keep: float, scale: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    """Decisions (board, dice, class) from gnubg-nn 0-ply self-play until every class quota is full."""
    rng = np.random.default_rng(seed)
    want = {k: max(1, round(v * scale)) for k, v in QUOTAS.items()}
    boards, dice, cls = [], [], []
    seen: set[bytes] = set()
    visited = np.zeros(len(CLASSES), dtype=np.int64)
    games = 0
    while any(v > 0 for v in want.values()):
        games += 1
        board, first = START.copy(), True
        while True:
            d = rng.integers(1, 7, size=2)
            while first and d[0] == d[1]:
                d = rng.integers(1, 7, size=2)
            first = False
            res = results_of(board, int(d[0]), int(d[1]))
            c = int(classify(board[None])[0])
            visited[c] += 1
            if len(res) > 1 and c < BEAROFF and want.get(c, 0) > 0 and rng.random() < keep:
                k = board.tobytes() + bytes([int(d[0]), int(d[1])])
                if k not in seen:
                    seen.add(k)
                    boards.append(board.copy())
                    dice.append((int(d[0]), int(d[1])))
                    cls.append(c)
                    want[c] -= 1
            if len(res) == 1:
                j = 0
            elif rng.random() < explore:
                j = int(rng.integers(len(res)))
            else:
                j = int(np.argmax(gnubg_mover_equity(res, 0)))
            after = res[j]
            if not after[:25].any():
                break
            board = np.concatenate([after[25:], after[:25]])
    share = visited[:3] / visited[:3].sum()
    info = {"games": games, "class_share": {CLASSES[i]: float(share[i]) for i in range(3)}}
    return np.asarray(boards, dtype=np.uint8), np.asarray(dice, dtype=np.uint8), np.asarray(cls), info


def build(args: argparse.Namespace) -> int:
    out = Path(args.out)
    work = out.with_suffix(".work")
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    sample_path = work / "sample.npz"
    if sample_path.exists():
        s = read_npz(sample_path)
        boards, dice, cls = boards_of_keys(s["keys"]), s["dice"], s["cls"]
        info = json.loads(str(s["info"].reshape(-1)[0]))
    else:
        boards, dice, cls, info = sample_decisions(args.seed, args.explore, args.keep, args.scale)
        write_npz(sample_path, keys=keys_of(boards), dice=dice, cls=cls, info=np.asarray(json.dumps(info)))
    print(f"{len(boards)} decisions from {info['games']} games; shares {info['class_share']}", flush=True)
    block = 50
    for b0 in range(0, len(boards), block):
        path = work / f"scores-{b0:05d}.npz"
        if path.exists():
            continue
        rows_keys, rows_n, e0, e1, ej = [], [], [], [], []
        for board, d in zip(boards[b0 : b0 + block], dice[b0 : b0 + block], strict=True):
            res = results_of(board, int(d[0]), int(d[1]))
            rows_keys.append(keys_of(res))
            rows_n.append(len(res))
            e0.append(gnubg_mover_equity(res, 0))
            e1.append(gnubg_mover_equity(res, 1))
            ej.append(gnubg_mover_equity(res, args.judge_ply))
        write_npz(
            path,
            keys=np.concatenate(rows_keys),
            n=np.asarray(rows_n, dtype=np.int32),
            e0=np.concatenate(e0).astype(np.float32),
            e1=np.concatenate(e1).astype(np.float32),
            judge=np.concatenate(ej).astype(np.float32),
        )
        done = min(b0 + block, len(boards))
        print(f"scored {done}/{len(boards)} in {time.perf_counter() - t0:.0f} s", flush=True)
    parts = [read_npz(work / f"scores-{b0:05d}.npz") for b0 in range(0, len(boards), block)]
    info.update(
        {
            "seed": args.seed,
            "explore": args.explore,
            "keep": args.keep,
            "judge": f"gnubg-nn {args.judge_ply}-ply",
            "quotas": {CLASSES[k]: max(1, round(v * args.scale)) for k, v in QUOTAS.items()},
        }
    )
    write_npz(
        out,
        keys=keys_of(boards),
        dice=dice,
        cls=cls.astype(np.uint8),
        n=np.concatenate([p["n"] for p in parts]),
        result_keys=np.concatenate([p["keys"] for p in parts]),
        e0=np.concatenate([p["e0"] for p in parts]),
        e1=np.concatenate([p["e1"] for p in parts]),
        judge=np.concatenate([p["judge"] for p in parts]),
        info=np.asarray(json.dumps(info, sort_keys=True)),
    )
    print(f"wrote {out}")
    return 0


# ---- score ------------------------------------------------------------------------------------------

BLUNDER = 0.08
SAGE_LEVELS = {0: "1ply", 1: "2ply", 2: "3ply"}
"""pulvezar's (and gnubg's) ply -> Open Sage's name of the same search depth."""
JUDGE2_FILE = "data/decisions/sage2-judge.npz"
JUDGE2_PLY = 2
JUDGE2_TOP = 4
COLUMNS = ("contact", "crashed", "race", "overall")


class DecisionSet:
    def __init__(self, path: str | Path) -> None:
        d = read_npz(path)
        self.keys = d["keys"]
        self.boards = boards_of_keys(d["keys"])
        self.dice = d["dice"]
        self.cls = d["cls"]
        self.n = d["n"].astype(np.intp)
        self.starts = np.concatenate([[0], np.cumsum(self.n)[:-1]])
        self.result_keys = d["result_keys"]
        self.results = boards_of_keys(d["result_keys"])
        self.e0, self.e1, self.judge = d["e0"], d["e1"], d["judge"]
        self.info = json.loads(str(d["info"].reshape(-1)[0]))
        h = hashlib.sha256()
        for a in (self.keys, self.dice, self.n.astype(np.int32), self.result_keys):
            h.update(np.ascontiguousarray(a).tobytes())
        self.digest = h.hexdigest()
        """sha256 of the decisions and their plays (not of the judge's values)."""

    def choices(self, values: np.ndarray) -> np.ndarray:
        """Per decision, the index (within the decision) of the play with the highest ``values``
        (first of equals)."""
        return np.array(
            [int(np.argmax(values[s : s + m])) for s, m in zip(self.starts, self.n, strict=True)],
            dtype=np.intp,
        )

    def losses(self, values: np.ndarray) -> np.ndarray:
        """Per decision, the judge's loss of the play with the highest ``values`` (first of equals)."""
        out = np.empty(len(self.n))
        for i, (s, m) in enumerate(zip(self.starts, self.n, strict=True)):
            j = self.judge[s : s + m]
            out[i] = float(j.max() - j[int(np.argmax(values[s : s + m]))])
        return out

    def report(self, name: str, loss: np.ndarray, idx: np.ndarray | None = None) -> dict[str, Any]:
        """Per class and overall (classes weighed by their shares in self-play): mean loss x 1000,
        95% half-width, share of blunders; ``loss`` of the decisions ``idx`` (default: all)."""
        cls = self.cls if idx is None else self.cls[idx]
        row: dict[str, Any] = {"engine": name}
        share = self.info["class_share"]
        overall = 0.0
        var = 0.0
        blunders = 0.0
        for k in (CONTACT, CRASHED, RACE):
            m = cls == k
            x = loss[m] * 1000
            mean = float(x.mean())
            half = float(1.96 * x.std(ddof=1) / math.sqrt(len(x)))
            row[CLASSES[k]] = (mean, half, float((loss[m] >= BLUNDER).mean()))
            overall += share[CLASSES[k]] * mean
            var += (share[CLASSES[k]] * half / 1.96) ** 2
            blunders += share[CLASSES[k]] * row[CLASSES[k]][2]
        row["overall"] = (overall, 1.96 * math.sqrt(var), float("nan"))
        row["overall_blunders"] = blunders
        row["n"] = {CLASSES[k]: int((cls == k).sum()) for k in (CONTACT, CRASHED, RACE)}
        return row


def class_sample(cls: np.ndarray, n: int, seed: int) -> np.ndarray:
    """``n`` decisions drawn with ``seed``, stratified by class in the set's proportions (sorted indices).

    Each class is one seeded permutation, so a larger ``n`` extends a smaller one's sample: the
    second judge's cached values stay useful when the sample grows."""
    rng = np.random.default_rng(seed)
    out = []
    for k in (CONTACT, CRASHED, RACE):
        idx = np.flatnonzero(cls == k)
        perm = rng.permutation(idx)
        out.append(perm[: min(len(idx), round(n * len(idx) / len(cls)))])
    return np.sort(np.concatenate(out))


class SecondJudge:
    """Open Sage at 2 plies (its "3ply") as a second judge, on the plays that matter only.

    For a decision the judge values the union of the plays the scored teachers chose and the judge
    file's (gnubg-nn 2-ply) top :data:`JUDGE2_TOP`; a teacher's loss is the judge's best of every play
    it has valued for that decision minus its value of the teacher's play.  The values are kept in a
    resumable ``.npz`` (decision index, the play's 10-byte key, the mover's cubeless equity; plus
    ``info``: the set's digest, the CPU seconds spent), written after each chunk, so a later run
    values only the plays it has not seen (a new teacher's other choices).
    """

    def __init__(self, path: str | Path, ds: DecisionSet) -> None:
        self.path = Path(path)
        self.ds = ds
        self.values: dict[tuple[int, bytes], float] = {}
        self.info: dict[str, Any] = {
            "judge": f"bgsage {JUDGE2_PLY}-ply",
            "how": f"bgsage.batch.batch_post_move_evaluate, eval_level {SAGE_LEVELS[JUDGE2_PLY]!r}, "
            "its default move filter (5 moves, 0.08), n_threads=1; cubeless equity of the mover",
            "bgsage": _version("bgsage"),
            "set_sha256": ds.digest,
            "cpu_seconds": 0.0,
            "cpu_seconds_by_class": {c: 0.0 for c in COLUMNS[:3]},
            "decisions_by_class": {c: 0 for c in COLUMNS[:3]},
        }
        if self.path.exists():
            d = read_npz(self.path)
            info = json.loads(str(d["info"].reshape(-1)[0]))
            if info.get("set_sha256") != ds.digest:
                raise ValueError(f"{self.path} was made for another decision set")
            self.info.update({k: v for k, v in info.items() if k not in ("bgsage",)})
            for i, k, v in zip(d["dec"].tolist(), d["keys"], d["equity"].tolist(), strict=True):
                self.values[(i, k.tobytes())] = v

    def plays(self, i: int) -> dict[int, float]:
        """The judged plays of decision ``i``: play index -> the judge's value."""
        s, m = int(self.ds.starts[i]), int(self.ds.n[i])
        out = {}
        for j in range(m):
            v = self.values.get((i, self.ds.result_keys[s + j].tobytes()))
            if v is not None:
                out[j] = v
        return out

    def wanted(self, sample: np.ndarray, chosen: list[np.ndarray]) -> dict[int, set[int]]:
        """Per decision of ``sample``: the teachers' choices and gnubg 2-ply's top plays."""
        out: dict[int, set[int]] = {}
        for i in sample.tolist():
            s, m = int(self.ds.starts[i]), int(self.ds.n[i])
            top = np.argsort(-self.ds.judge[s : s + m], kind="stable")[:JUDGE2_TOP]
            out[i] = {int(j) for j in top} | {int(c[i]) for c in chosen}
        return out

    def fill(self, wanted: dict[int, set[int]], chunk: int = 25, log: Callable[..., object] = print) -> None:
        """Value every wanted play not yet cached, ``chunk`` decisions per call, saving after each."""
        todo = [(i, sorted(j for j in js if j not in self.plays(i))) for i, js in sorted(wanted.items())]
        todo = [(i, js) for i, js in todo if js]
        total = sum(len(js) for _, js in todo)
        if total:
            log(f"second judge: {total} plays of {len(todo)} decisions to value", flush=True)
        done = 0
        for c0 in range(0, len(todo), chunk):
            part = todo[c0 : c0 + chunk]
            for i, js in part:  # one call per decision, to count the CPU time per class
                s = int(self.ds.starts[i])
                t0 = time.process_time()
                v = sage_mover_equity(self.ds.results[s + np.asarray(js)], SAGE_LEVELS[JUDGE2_PLY])
                dt = time.process_time() - t0
                for j, x in zip(js, v.tolist(), strict=True):
                    self.values[(i, self.ds.result_keys[s + j].tobytes())] = x
                c = CLASSES[int(self.ds.cls[i])]
                self.info["cpu_seconds"] += dt
                self.info["cpu_seconds_by_class"][c] += dt
                if len(js) == len(wanted[i]):  # a first visit
                    self.info["decisions_by_class"][c] += 1
            done += sum(len(js) for _, js in part)
            self.save()
            log(
                f"second judge: {done}/{total} plays, {self.info['cpu_seconds']:.0f} CPU s in all", flush=True
            )

    def save(self) -> None:
        items = sorted(self.values.items())
        write_npz(
            self.path,
            dec=np.array([i for (i, _), _ in items], dtype=np.int32),
            keys=np.frombuffer(b"".join(k for (_, k), _ in items), dtype=np.uint8).reshape(-1, 10),
            equity=np.array([v for _, v in items], dtype=np.float64),
            info=np.asarray(json.dumps(self.info, sort_keys=True)),
        )

    def losses(self, sample: np.ndarray, chosen: np.ndarray) -> np.ndarray:
        """Per decision of ``sample``: the judge's best of the plays it valued minus its value of
        the chosen play (which :meth:`fill` must have valued)."""
        out = np.empty(len(sample))
        for n, i in enumerate(sample.tolist()):
            p = self.plays(i)
            out[n] = max(p.values()) - p[int(chosen[i])]
        return out


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "absent"


def pulvezar_values(net: NetEvaluator, ds: DecisionSet, ply: int) -> np.ndarray:
    """The mover's equity of every play by pulvezar's search at ``ply`` (gnubg's numbering: the
    opponent's pre-roll board valued at ``ply``, as the ``pulvezar-vK-Nply`` teachers label it)."""
    if ply == 0:
        return net_mover_equity(net, ds.results)
    from pulvezar.search.plies import Search

    search = Search(net)
    out = np.empty(len(ds.results))
    for s, m in zip(ds.starts, ds.n, strict=True):
        res = ds.results[s : s + m]
        probs = search.probabilities(swap_boards(res), ply)  # the opponent on roll
        out[s : s + m] = equity(flip(probs))
    return out


def teacher_values(args: argparse.Namespace, ds: DecisionSet) -> list[tuple[str, np.ndarray, float]]:
    """(name, the mover's value of every play, CPU seconds) of each engine to score."""
    rows = [("gnubg-nn 0-ply", ds.e0, 0.0), ("gnubg-nn 1-ply", ds.e1, 0.0)]
    if args.teachers or args.judge2:
        rows.append(("gnubg-nn 2-ply", ds.judge, 0.0))  # the first judge itself
    for ply in sorted(set(args.sage_ply) | ({0, 1} if args.teachers else set())):
        t0 = time.process_time()
        v = sage_mover_equity(ds.results, SAGE_LEVELS[ply])
        rows.append((f"bgsage {ply}-ply", v, time.process_time() - t0))
    for m in args.model or [None]:
        net = NetEvaluator.load(m) if m else default_evaluator()
        label = Path(m).stem if m else "default"
        if m and Path(m).name == "model.pt":
            label = Path(m).parent.name
        for ply in sorted({0, *args.ply} | ({1} if args.teachers else set())):
            t0 = time.process_time()
            v = pulvezar_values(net, ds, ply)
            rows.append((f"{label} {ply}-ply", v, time.process_time() - t0))
    return rows


def paired(
    ds: DecisionSet, name: str, loss: np.ndarray, base: np.ndarray, idx: np.ndarray | None = None
) -> dict[str, Any]:
    """``loss - base`` on the same decisions, per class and overall: the mean x 1000 and its 95% half-width
    from the per-decision differences (paired: far narrower than the two engines' own intervals)."""
    row = ds.report(name, loss - base, idx)
    for c in COLUMNS:
        row[c] = (*row[c][:2], float("nan"))  # no blunder share of a difference
    return row


def base_index(teachers: list[tuple[str, np.ndarray, float]]) -> int:
    """The first pulvezar model's row (the one ``--paired`` compares every engine with)."""
    return next(i for i, (n, _, _) in enumerate(teachers) if not n.startswith(("gnubg-nn", "bgsage")))


def print_table(rows: list[dict[str, Any]]) -> None:
    head = f"{'engine':28} " + " ".join(f"{c:>22}" for c in COLUMNS)
    print(head)
    for r in rows:
        cells = []
        for c in COLUMNS:
            mean, half, bl = r[c]
            cells.append(f"{mean:6.2f} +- {half:4.2f}" + (f" ({bl:4.1%})" if bl == bl else " " * 8))
        print(f"{r['engine']:28} " + " ".join(f"{x:>22}" for x in cells))


def markdown(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> str:
    """Both judges side by side, a row per teacher: loss x 1000 +- half-width (blunders)."""
    by_name = {r["engine"]: r for r in second}
    names = [r["engine"] for r in second]
    lines = [
        "| teacher | " + " | ".join(f"{c}: gnubg 2-ply / bgsage 2-ply" for c in COLUMNS) + " |",
        "|---|" + "---|" * len(COLUMNS),
    ]
    firsts = {r["engine"]: r for r in first}

    def cell(r: dict[str, Any] | None, c: str) -> str:
        if r is None:
            return "judge"
        mean, half, bl = r[c]
        bl = r["overall_blunders"] if c == "overall" else bl
        return f"{mean:.2f} +- {half:.2f} ({bl:.1%})"

    for n in names:
        lines.append(
            f"| {n} | "
            + " | ".join(f"{cell(firsts.get(n), c)} / {cell(by_name[n], c)}" for c in COLUMNS)
            + " |"
        )
    return "\n".join(lines)


def write_table(path: Path, meta: dict[str, Any], tables: dict[str, list[dict[str, Any]]]) -> None:
    """The table as JSON (``meta`` and each judge's rows) and as CSV beside it."""
    out = {**meta, "tables": tables}
    write_text(path, json.dumps(out, indent=2, sort_keys=True) + "\n")
    lines = ["judge,teacher,class,decisions,loss_x1000,half_width_95,blunder_share"]
    for judge, rows in tables.items():
        for r in rows:
            for c in COLUMNS:
                mean, half, bl = r[c]
                bl = r["overall_blunders"] if c == "overall" else bl
                n = sum(r["n"].values()) if c == "overall" else r["n"][c]
                lines.append(f"{judge},{r['engine']},{c},{n},{mean:.4f},{half:.4f},{bl:.4f}")
    write_text(path.with_suffix(".csv"), "\n".join(lines) + "\n")


def score(args: argparse.Namespace) -> int:
    import torch

    torch.set_num_threads(1)
    ds = DecisionSet(args.set)
    print(
        f"{len(ds.n)} decisions ({', '.join(f'{CLASSES[k]} {int((ds.cls == k).sum())}' for k in range(3))}), "
        f"judge {ds.info['judge']}, class shares {ds.info['class_share']}"
    )
    teachers = teacher_values(args, ds)
    rows = []
    for name, v, sec in teachers:
        if name == "gnubg-nn 2-ply":
            continue  # the judge: no loss by construction
        rows.append(ds.report(name, ds.losses(v)))
        if sec:
            rows[-1]["seconds"] = sec
    print_table(rows)
    print(f"loss per decision x 1000 against the judge, 95% interval (share of blunders >= {BLUNDER})")
    tables = {ds.info["judge"]: rows}
    b = base_index(teachers)
    if args.paired:
        base = ds.losses(teachers[b][1])
        print(f"\npaired against {teachers[b][0]} (loss minus its loss on the same decisions, x 1000, 95%):")
        print_table([
            paired(ds, name, ds.losses(v), base) for i, (name, v, _) in enumerate(teachers)
            if i != b and name != "gnubg-nn 2-ply"
        ])  # fmt: skip
    if args.judge2:
        sample = class_sample(ds.cls, args.judge2, args.judge2_seed)
        judge = SecondJudge(args.judge2_file, ds)
        chosen = [ds.choices(v) for _, v, _ in teachers]
        judge.fill(judge.wanted(sample, chosen), log=print)
        second = [
            ds.report(name, judge.losses(sample, c), sample)
            for (name, _, _), c in zip(teachers, chosen, strict=True)
        ]
        print(
            f"\nsecond judge {judge.info['judge']} on {len(sample)} decisions (seed {args.judge2_seed}; "
            f"{', '.join(f'{k} {v}' for k, v in second[0]['n'].items())}): the judge's best of the plays it "
            f"valued (the teachers' choices and gnubg 2-ply's top {JUDGE2_TOP}) minus its value of the choice"
        )
        print_table(second)
        if args.paired:
            base2 = judge.losses(sample, chosen[b])
            print(f"paired against {teachers[b][0]} under {judge.info['judge']} (x 1000, 95%):")
            print_table([
                paired(ds, name, judge.losses(sample, c), base2, sample)
                for i, ((name, _, _), c) in enumerate(zip(teachers, chosen, strict=True)) if i != b
            ])  # fmt: skip
        same = [ds.report(name, ds.losses(v)[sample], sample) for name, v, _ in teachers]
        print(f"\nthe first judge ({ds.info['judge']}) on the same {len(sample)} decisions")
        print_table(same)
        print("\n" + markdown(rows, second))
        cost = judge.info
        per = {
            c: cost["cpu_seconds_by_class"][c] / max(1, cost["decisions_by_class"][c]) for c in COLUMNS[:3]
        }
        judged = sum(cost["decisions_by_class"].values())
        print(
            f"\nsecond judge's cost: {cost['cpu_seconds']:.0f} CPU s for {judged} decisions; per decision "
            + ", ".join(f"{c} {s:.2f} s" for c, s in per.items())
        )
        tables[f"{judge.info['judge']} (sample)"] = second
        tables[f"{ds.info['judge']} (sample)"] = same
    if args.json:
        meta = {
            "set": str(args.set),
            "set_sha256": ds.digest,
            "judges": {ds.info["judge"]: "every legal play of every decision"},
            "teacher_cpu_seconds": {name: round(sec, 1) for name, _, sec in teachers},
            "versions": {p: _version(p) for p in ("gnubg-nn", "bgsage")},
            "class_share": ds.info["class_share"],
        }
        if args.judge2:
            meta["judges"][judge.info["judge"]] = (
                f"{len(sample)} decisions (seed {args.judge2_seed}, stratified by class), "
                f"the teachers' choices and gnubg 2-ply's top {JUDGE2_TOP}; cache {args.judge2_file}"
            )
            meta["judge2"] = judge.info
        write_table(Path(args.json), meta, tables)
        print(f"wrote {args.json} and {Path(args.json).with_suffix('.csv')}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", default="data/decisions/gnubg2.npz")
    b.add_argument("--seed", type=int, default=20261201)
    b.add_argument("--explore", type=float, default=0.05)
    b.add_argument("--keep", type=float, default=0.1)
    b.add_argument("--judge-ply", type=int, default=2)
    b.add_argument("--scale", type=float, default=1.0, help="quotas x this (a quick smaller set)")
    s = sub.add_parser("score")
    s.add_argument("set", nargs="?", default="data/decisions/gnubg2.npz")
    s.add_argument("--model", action="append")
    s.add_argument("--ply", type=int, action="append", default=[])
    s.add_argument("--sage-ply", type=int, action="append", default=[], choices=[0, 1, 2])
    s.add_argument(
        "--teachers",
        action="store_true",
        help="every candidate teacher (issue 28): gnubg-nn 0/1/2, bgsage 0/1, each model at 0 and 1 ply",
    )
    s.add_argument(
        "--judge2", type=int, default=0, metavar="N", help="also judge N decisions by bgsage 2-ply"
    )
    s.add_argument("--judge2-seed", type=int, default=28)
    s.add_argument("--judge2-file", default=JUDGE2_FILE)
    s.add_argument("--json", help="write the table(s) here, and a .csv beside it")
    s.add_argument(
        "--paired", action="store_true", help="also each engine's loss minus the first --model's (paired)"
    )
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity") and args.cmd == "score":
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    return build(args) if args.cmd == "build" else score(args)


if __name__ == "__main__":
    raise SystemExit(main())
