"""Teacher labels for the position corpus (issue 13, stage 1).

A label is the five cumulative probabilities of the player on roll, pulvezar's order
(:mod:`pulvezar.eval.evaluator`): win, win gammon (incl. backgammon), win backgammon,
lose gammon (incl. backgammon), lose backgammon; stored as float16 with the id of the
teacher that gave it (an index into :data:`TEACHERS`; :data:`UNLABELLED` = none yet).

Teachers:

- ``gnubg-nn-Nply``: GNU Backgammon's evaluation through the ``gnubg_nn`` package (a
  test/bench extra, imported only inside the teacher): ``probabilities([opponent, on
  roll], N)``, each side 25 counts in its own numbering, index 24 = bar (checked against
  pulvezar's 0-ply and Position IDs in ``tests/train/test_corpus.py``).  International
  rules only: gnubg knows no Tavla.
- ``pulvezar-vK-Nply``: pulvezar's own search (:meth:`pulvezar.search.plies.Search.probabilities`)
  with the model ``pulvezar-vK`` and the position's rule set (Tavla: mars = 2, its options).
- ``bgsage-Nply``: Open Sage (PyPI ``bgsage``, MPL-2.0; a bench extra, imported only inside the
  teacher), its pre-roll cubeless probabilities at its level ``N + 1`` (Open Sage counts the raw net
  as "1ply"), one thread.  Its board is 26 signed counts seen by the player on roll: index ``i`` in
  1..24 is the mover's point ``i`` (the opponent's checkers negative, on their point ``25 - i``), 25 the
  mover's bar and 0 the opponent's (:func:`sage_board`; checked against gnubg-nn in
  ``tests/train/test_labels_bgsage.py``).  International rules only.
- ``bearoff-exact``: pulvezar's bear-off databases (only for bear-off positions, which
  the corpus drops, so unused so far).

Labelling runs in **shards** of ``shard`` consecutive corpus positions; shard ``i`` is
computed in one call with a fresh search cache and written atomically to
``workdir/labels-SET/shard-iiiii.npz`` (deterministic bytes; a label set such as ``2ply`` or
``1ply`` has its teachers in ``labels-SET.json``), so a killed run resumes at the
next missing shard and gives identical bytes.  Each shard holds ``probs`` (float16),
``teacher`` (uint8) and ``keys_sha256`` (of its keys and rules, so a shard never meets the
wrong corpus).  Shards already committed under ``data/corpus/labels-SET`` are copied in first.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from pulvezar.eval.evaluator import EvaluatorBase, terminal
from pulvezar.rules.rules import Rules
from pulvezar.train.corpus import (
    CLASSES,
    CORPUS_FILE,
    META_FILE,
    RULE_NAMES,
    RULESETS,
    boards_of_keys,
    read_npz,
    sha256_file,
    write_npz,
    write_text,
)

Boards = npt.NDArray[np.uint8]
Probs = npt.NDArray[np.float64]
Log = Callable[[str], None]

TEACHERS: tuple[str, ...] = (
    "gnubg-nn-0ply",
    "gnubg-nn-1ply",
    "gnubg-nn-2ply",
    "pulvezar-v2-0ply",
    "pulvezar-v2-1ply",
    "pulvezar-v2-2ply",
    "bearoff-exact",
    "bgsage-0ply",
    "bgsage-1ply",
    "bgsage-2ply",
    "pulvezar-v3-0ply",
    "pulvezar-v3-1ply",
    "pulvezar-v3-2ply",
    "pulvezar-v4a-0ply",
    "pulvezar-v4a-1ply",
    "pulvezar-v4a-2ply",
    "lookahead-1ply",  # a model's own 1-ply (pulvezar.train.lookahead; the model in labels-SET.json)
    "lookahead-1ply-gnubg",  # 1-ply under the rule set, replies valued by gnubg-nn 0-ply (lookahead, Tavla)
    "lookahead-2ply",  # a model's own 2-ply (pulvezar.train.lookahead)
    "lookahead-2ply-gnubg",  # 2-ply under the rule set, leaves valued by gnubg-nn 0-ply
)
"""Teacher names by id. Append only: ids are stored in committed label shards."""
UNLABELLED = 255
DEFAULT_SET = "2ply"
SUMS_FILE = "SHA256SUMS"


@dataclass
class LabelConfig:
    """Which teacher labels which positions (stored in ``labels.json``; a resumed run keeps it)."""

    shard: int = 5_000
    international: str = "gnubg-nn-2ply"
    tavla: str = "pulvezar-v2-2ply"


PRESETS: dict[str, LabelConfig] = {
    "2ply": LabelConfig(international="gnubg-nn-2ply", tavla="pulvezar-v2-2ply"),
    "1ply": LabelConfig(international="gnubg-nn-1ply", tavla="pulvezar-v2-1ply"),
    "0ply": LabelConfig(shard=100_000, international="gnubg-nn-0ply", tavla="pulvezar-v2-0ply"),
    "sage1": LabelConfig(international="bgsage-1ply", tavla="pulvezar-v3-1ply"),
    "sage2": LabelConfig(international="bgsage-2ply", tavla="pulvezar-v3-2ply"),
    "v3-0ply": LabelConfig(shard=100_000, international="pulvezar-v3-0ply", tavla="pulvezar-v3-0ply"),
    "v3-1ply": LabelConfig(shard=20_000, international="pulvezar-v3-1ply", tavla="pulvezar-v3-1ply"),
    "v4a-2ply": LabelConfig(shard=2_500, international="pulvezar-v4a-2ply", tavla="pulvezar-v4a-2ply"),
    "lookahead": LabelConfig(international="lookahead-1ply", tavla="lookahead-1ply"),  # train.lookahead
}
"""Named label sets: ``--set 1ply 2ply`` labels the whole corpus cheaply first, then deeply."""


def labels_dir(workdir: str | Path, label_set: str = DEFAULT_SET) -> Path:
    """Shards of one label set (e.g. ``2ply``, ``1ply``): ``workdir/labels-SET``."""
    return Path(workdir) / f"labels-{label_set}"


def config_path(workdir: str | Path, label_set: str = DEFAULT_SET) -> Path:
    return Path(workdir) / f"labels-{label_set}.json"


def shard_path(workdir: str | Path, i: int, label_set: str = DEFAULT_SET) -> Path:
    return labels_dir(workdir, label_set) / f"shard-{i:05d}.npz"


def label_sets(folder: str | Path) -> list[str]:
    """The label sets present in ``folder`` (by their ``labels-SET.json``)."""
    return sorted(p.stem.removeprefix("labels-") for p in Path(folder).glob("labels-*.json"))


def keys_digest(keys: npt.NDArray[np.uint8], rules: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    h = hashlib.sha256(np.ascontiguousarray(keys).tobytes() + np.ascontiguousarray(rules).tobytes())
    return np.frombuffer(h.digest(), dtype=np.uint8).copy()


# ---- teachers ---------------------------------------------------------------------------


def gnubg_probabilities(boards: Boards, ply: int) -> Probs:
    """gnubg-nn's N-ply probabilities of pulvezar boards (player on roll first), one board at a time."""
    import gnubg_nn  # a test/bench extra, not a runtime dependency

    out = np.empty((len(boards), 5))
    for j, b in enumerate(boards):
        mine, theirs = b[:25].tolist(), b[25:].tolist()
        out[j] = gnubg_nn.probabilities([theirs, mine], ply)
    return out


class GnubgEvaluator(EvaluatorBase):
    """gnubg-nn 0-ply as an evaluator of pulvezar boards (a search's leaves): finished games exact, the
    rest gnubg-nn's (:func:`gnubg_probabilities`, a board a call; outputs only)."""

    def evaluate_boards(self, boards: Boards) -> Probs:
        boards = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
        done, out = terminal(boards)
        live = np.flatnonzero(~done)
        if len(live):
            out[live] = gnubg_probabilities(boards[live], 0)
        result: Probs = out
        return result


def sage_board(board: npt.NDArray[np.uint8]) -> list[int]:
    """A pulvezar board (50 counts, player on roll first) as Open Sage's 26 signed counts."""
    mine, theirs = board[:25].astype(int), board[25:].astype(int)
    out = [0] * 26
    out[1:25] = (mine[:24] - theirs[23::-1]).tolist()
    out[25], out[0] = int(mine[24]), int(theirs[24])
    return out


def _bgsage(boards: Boards, ply: int) -> Probs:
    from bgsage.batch import batch_evaluate  # a bench extra, not a runtime dependency

    positions = [{"board": sage_board(b), "cube_value": 1, "cube_owner": "centered"} for b in boards]
    results = batch_evaluate(positions, eval_level=f"{ply + 1}ply", n_threads=1)
    return np.array([r.probs.to_list() for r in results], dtype=np.float64).reshape(-1, 5)


_EVALUATORS: dict[str, Any] = {}


def _pulvezar_evaluator(model: str) -> Any:
    from pulvezar.eval.evaluator import MODELS, NetEvaluator

    if model not in _EVALUATORS:
        _EVALUATORS[model] = NetEvaluator.load(MODELS / f"{model}.pt", device="cpu")
    return _EVALUATORS[model]


def _pulvezar(boards: Boards, model: str, ply: int, rules: Rules) -> Probs:
    from pulvezar.search.plies import Search

    # a fresh cache: values independent of history; unpruned, explicitly (the search prunes by
    # default), so that a label set stays reproducible whatever the default pruning becomes
    search = Search(_pulvezar_evaluator(model), rules, prune=None)
    result: Probs = search.probabilities(boards, ply)
    return result


def _bearoff(boards: Boards) -> Probs:
    from pulvezar.eval.evaluator import BearoffRaces, default_evaluator

    if not BearoffRaces.covers(boards).all():
        raise ValueError("bearoff-exact labels only bear-off positions")
    result: Probs = default_evaluator().evaluate_boards(boards)
    return result


def teach(teacher: str, boards: Boards, rules: Rules) -> Probs:
    """``(N, 50)`` boards (player on roll) -> ``(N, 5)`` probabilities from ``teacher``."""
    boards = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
    if teacher not in TEACHERS:
        raise ValueError(f"unknown teacher {teacher!r} (known: {', '.join(TEACHERS)})")
    if len(boards) == 0:
        return np.zeros((0, 5))
    if teacher == "bearoff-exact":
        return _bearoff(boards)
    name, ply_s = teacher.rsplit("-", 1)
    ply = int(ply_s.removesuffix("ply"))
    if name == "gnubg-nn":
        if rules.variant != "international":
            raise ValueError("gnubg-nn knows no Tavla")
        return gnubg_probabilities(boards, ply)
    if name == "bgsage":
        if rules.variant != "international":
            raise ValueError("bgsage knows no Tavla")
        return _bgsage(boards, ply)
    return _pulvezar(boards, name, ply, rules)


def measure(teachers: list[str], boards: Boards, rules: Rules = RULESETS[0]) -> dict[str, float]:
    """Milliseconds per position of each teacher on ``boards`` (one call each, fresh caches)."""
    out = {}
    for t in teachers:
        t0 = time.perf_counter()
        teach(t, boards, rules)
        out[t] = 1000.0 * (time.perf_counter() - t0) / max(1, len(boards))
    return out


def read_labels(
    folder: str | Path, label_set: str, corpus: dict[str, npt.NDArray[Any]]
) -> tuple[Probs, npt.NDArray[np.uint8]]:
    """Every finished shard of ``label_set`` under ``folder`` for ``corpus`` (its arrays): ``(N, 5)``
    probabilities (0 where unlabelled) and ``(N,)`` teacher ids (:data:`UNLABELLED` where none).
    Each shard is checked against the corpus by its keys' digest."""
    meta = json.loads(config_path(folder, label_set).read_text())
    shard = int(meta["shard"])
    n = len(corpus["keys"])
    probs = np.zeros((n, 5))
    teacher = np.full(n, UNLABELLED, dtype=np.uint8)
    for i in range((n + shard - 1) // shard):
        path = shard_path(folder, i, label_set)
        if not path.exists():
            continue
        lo, hi = i * shard, min(n, (i + 1) * shard)
        s = read_npz(path)
        if len(s["probs"]) != hi - lo or not np.array_equal(
            s["keys_sha256"], keys_digest(corpus["keys"][lo:hi], corpus["rules"][lo:hi])
        ):
            raise ValueError(f"{path} does not belong to this corpus")
        probs[lo:hi] = s["probs"].astype(np.float64)
        teacher[lo:hi] = s["teacher"]
    return probs, teacher


# ---- the labelling run ------------------------------------------------------------------


class LabelRun:
    """Label the corpus in ``workdir`` (``corpus.npz``) shard by shard."""

    def __init__(
        self,
        workdir: str | Path,
        config: LabelConfig | None = None,
        committed: str | Path | None = None,
        label_set: str = DEFAULT_SET,
    ):
        self.workdir = Path(workdir)
        self.label_set = label_set
        self.committed = Path(committed) if committed else None
        saved = self.saved_config(self.workdir, label_set)
        self.config = saved or config or LabelConfig()
        for t in (self.config.international, self.config.tavla):
            if t not in TEACHERS:
                raise ValueError(f"unknown teacher {t!r}")
        self._corpus: dict[str, npt.NDArray[Any]] | None = None

    @staticmethod
    def saved_config(workdir: str | Path, label_set: str = DEFAULT_SET) -> LabelConfig | None:
        path = config_path(workdir, label_set)
        if not path.exists():
            return None
        raw = json.loads(path.read_text())
        known = {f.name for f in fields(LabelConfig)}
        return LabelConfig(**{k: v for k, v in raw.items() if k in known})

    @property
    def corpus(self) -> dict[str, npt.NDArray[Any]]:
        if self._corpus is None:
            self._corpus = read_npz(self.workdir / CORPUS_FILE)
        return self._corpus

    def shards(self) -> int:
        n = len(self.corpus["keys"])
        return (n + self.config.shard - 1) // self.config.shard

    def _bounds(self, i: int) -> tuple[int, int]:
        n = len(self.corpus["keys"])
        return i * self.config.shard, min(n, (i + 1) * self.config.shard)

    def prepare(self, log: Log = print) -> None:
        """Take the corpus and finished shards from the committed folder where the run lacks them."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        c = self.committed
        if c is not None and c.is_dir():
            verify(c, strict=False)  # raises on a corrupt committed file
            listed = listed_files(c)
            if not (self.workdir / CORPUS_FILE).exists() and "positions.npz" in listed:
                _copy(c / "positions.npz", self.workdir / CORPUS_FILE)
                if (c / META_FILE).exists():
                    _copy(c / META_FILE, self.workdir / META_FILE)
                log(f"corpus taken from {c}")
            mine, theirs = config_path(self.workdir, self.label_set), config_path(c, self.label_set)
            if not mine.exists() and theirs.relative_to(c).as_posix() in listed:
                _copy(theirs, mine)
                self.config = self.saved_config(self.workdir, self.label_set) or self.config
        cfg_file = config_path(self.workdir, self.label_set)
        if not cfg_file.exists():
            cfg = {**asdict(self.config), "corpus_sha256": sha256_file(self.workdir / CORPUS_FILE)}
            write_text(cfg_file, json.dumps(cfg, indent=2) + "\n")
        want = json.loads(cfg_file.read_text()).get("corpus_sha256")
        if want and want != sha256_file(self.workdir / CORPUS_FILE):
            raise ValueError("the labels were made for another corpus (corpus_sha256 differs)")
        theirs_dir = labels_dir(c, self.label_set) if c is not None else None
        if theirs_dir is not None and theirs_dir.is_dir():
            copied = 0
            listed = listed_files(c) if c is not None else {}
            for src in sorted(theirs_dir.glob("shard-*.npz")):
                dst = labels_dir(self.workdir, self.label_set) / src.name
                if not dst.exists() and src.relative_to(theirs_dir.parent).as_posix() in listed:
                    _copy(src, dst)
                    copied += 1
            if copied:
                log(f"{copied} finished shards taken from {theirs_dir}")

    def teacher_of(self, rules: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
        t_int, t_tav = TEACHERS.index(self.config.international), TEACHERS.index(self.config.tavla)
        return np.where(rules == 0, t_int, t_tav).astype(np.uint8)

    def label_shard(self, i: int) -> dict[str, float]:
        """Compute and write shard ``i``; returns seconds per teacher."""
        lo, hi = self._bounds(i)
        keys, rules = self.corpus["keys"][lo:hi], self.corpus["rules"][lo:hi]
        boards = boards_of_keys(keys)
        teacher = self.teacher_of(rules)
        probs = np.zeros((len(keys), 5))
        seconds: dict[str, float] = {}
        for r in np.unique(rules):
            m = rules == r
            name = TEACHERS[int(teacher[m][0])]
            t0 = time.perf_counter()
            probs[m] = teach(name, boards[m], RULESETS[int(r)])
            seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - t0
        probs = np.clip(probs, 0.0, 1.0)
        write_npz(
            shard_path(self.workdir, i, self.label_set),
            probs=probs.astype(np.float16),
            teacher=teacher,
            keys_sha256=keys_digest(keys, rules),
        )
        return seconds

    def done(self) -> list[int]:
        return [i for i in range(self.shards()) if shard_path(self.workdir, i, self.label_set).exists()]

    def run(self, log: Log = print, stop_after: int | None = None, threads: int = 1) -> bool:
        """Label every missing shard in order; ``True`` when all are done."""
        import torch

        torch.set_num_threads(threads)
        self.prepare(log)
        total = self.shards()
        computed = 0
        for i in range(total):
            if shard_path(self.workdir, i, self.label_set).exists():
                continue
            if stop_after is not None and computed >= stop_after:
                return False
            t0 = time.perf_counter()
            secs = self.label_shard(i)
            dt = time.perf_counter() - t0
            computed += 1
            lo, hi = self._bounds(i)
            rules = self.corpus["rules"][lo:hi]
            n_int = int((rules == 0).sum())
            row = {
                "shard": i,
                "positions": hi - lo,
                "international": n_int,
                "tavla": hi - lo - n_int,
                "seconds": round(dt, 2),
                **{f"s_{k}": round(v, 2) for k, v in sorted(secs.items())},
                "finished_at": time.strftime("%Y-%m-%d %H:%M:%S"),
            }
            _append_csv(self.workdir / f"labels-{self.label_set}-log.csv", row)
            ms = {
                k: f"{1000 * v / max(1, n):.1f}"
                for k, v, n in _per_teacher(secs, n_int, hi - lo - n_int, self.config)
            }
            log(
                f"{self.label_set} shard {i + 1}/{total}: {hi - lo} positions in {dt:.0f} s; ms/position {ms}"
            )
        return True

    def status(self) -> dict[str, Any]:
        """Labels done so far: per teacher, class, rule set."""
        done = self.done()
        teacher_counts: dict[str, int] = {}
        labelled = np.zeros(len(self.corpus["keys"]), dtype=bool)
        for i in done:
            lo, hi = self._bounds(i)
            t = read_npz(shard_path(self.workdir, i, self.label_set))["teacher"]
            labelled[lo:hi] = t != UNLABELLED
            for tid in np.unique(t):
                name = TEACHERS[int(tid)] if tid != UNLABELLED else "unlabelled"
                teacher_counts[name] = teacher_counts.get(name, 0) + int((t == tid).sum())
        cls, rules = self.corpus["cls"], self.corpus["rules"]
        return {
            "label_set": self.label_set,
            **asdict(self.config),
            "shards_done": len(done),
            "shards": self.shards(),
            "labelled": int(labelled.sum()),
            "positions": len(labelled),
            "teachers": teacher_counts,
            "labelled_by_class": {c: int((labelled & (cls == k)).sum()) for k, c in enumerate(CLASSES[:3])},
            "labelled_by_rules": {r: int((labelled & (rules == k)).sum()) for k, r in enumerate(RULE_NAMES)},
        }


def _per_teacher(
    secs: dict[str, float], n_int: int, n_tav: int, cfg: LabelConfig
) -> list[tuple[str, float, int]]:
    out = []
    for name, s in secs.items():
        n = (n_int if name == cfg.international else 0) + (n_tav if name == cfg.tavla else 0)
        out.append((name, s, n))
    return out


def _append_csv(path: Path, row: dict[str, Any]) -> None:
    new = not path.exists()
    with path.open("a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(row))
        if new:
            w.writeheader()
        w.writerow(row)


# ---- the committed form -------------------------------------------------------------------


def export(
    workdir: str | Path, out: str | Path, log: Log = print, sets: list[str] | None = None
) -> dict[str, Any]:
    """Copy the corpus and every finished shard of every label set of ``workdir`` to ``out``, and write
    ``status.json`` (counts) and ``SHA256SUMS``; ``sets`` limits the label sets exported.  Files
    already there with the same bytes are left alone."""
    src, dst = Path(workdir), Path(out)
    dst.mkdir(parents=True, exist_ok=True)
    pairs = [(src / CORPUS_FILE, dst / "positions.npz"), (src / META_FILE, dst / META_FILE)]
    statuses = {}
    for name in label_sets(src):
        if sets is not None and name not in sets:
            continue
        run = LabelRun(src, label_set=name)
        pairs.append((config_path(src, name), config_path(dst, name)))
        pairs += [(shard_path(src, i, name), shard_path(dst, i, name)) for i in run.done()]
        statuses[name] = run.status()
    copied = 0
    for a, b in pairs:
        if not a.exists():
            continue
        if b.exists() and b.read_bytes() == a.read_bytes():
            continue
        _copy(a, b)
        copied += 1
    write_text(dst / "status.json", json.dumps(statuses, indent=2) + "\n")
    write_sums(dst)
    done = ", ".join(f"{k}: {v['labelled']}/{v['positions']}" for k, v in statuses.items())
    log(f"exported to {dst}: {copied} files copied; labelled {done}")
    return statuses


def _copy(a: Path, b: Path) -> None:
    """Copy ``a`` to ``b`` through a temporary file and a rename: a reader never sees half a file."""
    b.parent.mkdir(parents=True, exist_ok=True)
    tmp = b.with_name(b.name + ".tmp")
    shutil.copyfile(a, tmp)
    os.replace(tmp, b)


def _listed(folder: Path) -> list[Path]:
    files = [p for p in folder.rglob("*") if p.is_file() and p.suffix in (".npz", ".json")]
    return sorted(files, key=lambda p: str(p.relative_to(folder)))


def write_sums(folder: str | Path) -> None:
    folder = Path(folder)
    lines = [f"{sha256_file(p)}  {p.relative_to(folder).as_posix()}" for p in _listed(folder)]
    write_text(folder / SUMS_FILE, "\n".join(lines) + "\n")


def listed_files(folder: str | Path) -> dict[str, str]:
    """``SHA256SUMS`` of ``folder`` as ``{relative path: sha256}`` (empty when there is none)."""
    sums = Path(folder) / SUMS_FILE
    listed: dict[str, str] = {}
    if sums.exists():
        for line in sums.read_text().splitlines():
            if line.strip():
                digest, name = line.split(None, 1)
                listed[name.strip()] = digest
    return listed


def verify(folder: str | Path, strict: bool = True) -> int:
    """Check every file listed in ``SHA256SUMS`` and every shard against the corpus; returns files checked.

    Raises ``ValueError`` naming the first bad file (changed bytes, missing, or, when ``strict``, a data
    file not listed, or no ``SHA256SUMS`` at all).  ``strict=False`` checks only what is listed (a label
    run reading a folder that an export is writing at the same moment).
    """
    folder = Path(folder)
    if strict and not (folder / SUMS_FILE).exists():
        raise ValueError(f"{folder / SUMS_FILE} is missing")
    listed = listed_files(folder)
    for name, digest in listed.items():
        p = folder / name
        if not p.exists():
            raise ValueError(f"{name}: listed in {SUMS_FILE} but missing")
        if sha256_file(p) != digest:
            raise ValueError(f"{name}: checksum mismatch")
    for p in _listed(folder) if strict else []:
        if p.relative_to(folder).as_posix() not in listed:
            raise ValueError(f"{p.relative_to(folder)}: not in {SUMS_FILE}")
    known = {f.name for f in fields(LabelConfig)}
    corpus = read_npz(folder / "positions.npz") if "positions.npz" in listed else None
    for name in label_sets(folder) if corpus is not None else []:
        assert corpus is not None
        if config_path(folder, name).relative_to(folder).as_posix() not in listed:
            continue
        raw = json.loads(config_path(folder, name).read_text())
        shard = LabelConfig(**{k: v for k, v in raw.items() if k in known}).shard
        for p in sorted(labels_dir(folder, name).glob("shard-*.npz")):
            if p.relative_to(folder).as_posix() not in listed:
                continue
            i = int(p.stem.split("-")[1])
            lo, hi = i * shard, min(len(corpus["keys"]), (i + 1) * shard)
            s = read_npz(p)
            if len(s["probs"]) != hi - lo or not np.array_equal(
                s["keys_sha256"], keys_digest(corpus["keys"][lo:hi], corpus["rules"][lo:hi])
            ):
                raise ValueError(f"{p.relative_to(folder)}: does not belong to positions.npz")
    return len(listed)
