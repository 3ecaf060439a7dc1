"""A large corpus of positions for supervised learning from deeper teachers (issue 13, stage 1).

``pulvezar train corpus build --workdir runs/corpus`` builds it: distinct
positions, each seen from the player on roll before the roll, from

- **match files** (``source = "matches"``): every decision of every readable match file
  under ``--matches`` (default ``../shared/data/matches`` next to the repository), read by
  :mod:`pulvezar.formats`, plus ``XGID=`` lines of any other text file there; files that
  fail are skipped and named in the metadata; a missing folder gives no positions;
- **self-play** of the current net with exploration (``source = "selfplay"``): lockstep
  games, each game with its own exploration rate drawn from ``explore_rates``; a move of a
  game with rate ``e`` is a uniformly random legal play with probability ``e``, else its
  0-ply best play; every visited position is kept with probability ``keep``;
- **Tavla self-play** (``source = "tavla-selfplay"``), the same under each of Tavla's four
  rule sets (plain, hit-and-stop, must-bear-off, both): a position counts once per rule set
  because its value depends on the rules.

Positions are classified like GNU Backgammon's ``ClassifyPosition`` (:func:`classify`):
``over`` (a finished game), ``bearoff`` (both sides have every checker in their home
boards: exact in pulvezar's bear-off databases), ``race`` (no contact), ``crashed`` (contact,
and a side has few checkers left in play, gnubg's definition: :func:`pulvezar.eval.classes.crashed`)
and ``contact``.  **Finished
games and bear-off positions are dropped** (counted as seen, never stored): pulvezar's
evaluator values them exactly and never asks a net, so a label on them would teach nothing.

Self-play runs in **blocks** (``block_games`` games each, seeded by ``(seed, rules, block)``)
saved under ``workdir/blocks``; an interrupted build resumes at the first missing block
and assembles the same corpus.  The corpus is the match positions, then each Tavla rule
set's blocks in order until its quota of distinct positions, then international self-play
blocks until ``positions`` distinct international positions, all in one seeded random
order (so any prefix, e.g. the first label shards, has the corpus's mix of classes and
sources).  It is stored in ``workdir/corpus.npz``: ``keys`` ``(N, 10)`` uint8 (GNU
Backgammon's 80-bit Position ID key, :func:`keys_of`), ``rules``, ``source`` and ``cls``
(uint8 indices into :data:`RULESETS`, :data:`SOURCES`, :data:`CLASSES`); what made it and
the counts go to ``corpus.json``.

Every ``.npz`` here is written by :func:`write_npz`: deterministic bytes (fixed zip
timestamps), atomically (a temporary file and a rename).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
import time
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from pulvezar.eval.classes import crashed as crashed  # moved to the eval layer; importable from here too
from pulvezar.eval.encoding import contact
from pulvezar.eval.evaluator import BearoffRaces, Evaluator, equity, flip, for_rules, swap_boards, terminal
from pulvezar.rules import _kernel
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules

Boards = npt.NDArray[np.uint8]
Keys = npt.NDArray[np.uint8]
Log = Callable[[str], None]

RULESETS: tuple[Rules, ...] = (
    Rules.international(),
    Rules.tavla(),
    Rules.tavla(hit_and_stop=True),
    Rules.tavla(must_bear_off=True),
    Rules.tavla(hit_and_stop=True, must_bear_off=True),
)
"""Rule sets by index (the ``rules`` column); names are :attr:`Rules.name`."""
RULE_NAMES: tuple[str, ...] = tuple(r.name for r in RULESETS)
SOURCES: tuple[str, ...] = ("selfplay", "matches", "tavla-selfplay")
CLASSES: tuple[str, ...] = ("contact", "crashed", "race", "bearoff", "over")
CONTACT, CRASHED, RACE, BEAROFF, OVER = range(5)
KEY_BYTES = 10
START = np.frombuffer(Position.start().board, dtype=np.uint8)
CORPUS_FILE = "corpus.npz"
META_FILE = "corpus.json"


def default_matches_dir() -> Path:
    """``../shared/data/matches`` beside the repository root (may not exist, e.g. in CI)."""
    return Path(__file__).resolve().parents[3].parent / "shared" / "data" / "matches"


@dataclass
class CorpusConfig:
    """Settings of a corpus build (stored in ``corpus.json``)."""

    seed: int = 13
    positions: int = 500_000  # distinct international positions (matches + self-play)
    tavla_positions: int = 15_000  # distinct positions per Tavla rule set
    block_games: int = 500  # self-play games per block (the unit of resumption)
    lockstep: int = 250  # games that advance together
    keep: float = 0.5  # probability that a visited position is a candidate
    explore_rates: list[float] = field(default_factory=lambda: [0.0, 0.05, 0.1, 0.2, 0.4])
    matches: str = ""  # folder of match files; "" = default_matches_dir()


# ---- deterministic files ------------------------------------------------------------


def write_npz(path: str | Path, **arrays: Any) -> None:
    """A compressed ``.npz`` with deterministic bytes (fixed timestamps), written atomically."""
    path = Path(path)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name in sorted(arrays):
            arr = io.BytesIO()
            np.lib.format.write_array(arr, np.ascontiguousarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, arr.getvalue(), compresslevel=9)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(buf.getvalue())
    os.replace(tmp, path)


def read_npz(path: str | Path) -> dict[str, npt.NDArray[Any]]:
    with np.load(path, allow_pickle=False) as f:
        return {k: f[k] for k in f.files}


def write_text(path: str | Path, text: str) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def sha256_file(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def seed_of(*words: int) -> int:
    """A 63-bit seed derived from ``words``."""
    return int(np.random.SeedSequence(list(words)).generate_state(1, np.uint64)[0] >> np.uint64(1))


# ---- keys and classes ---------------------------------------------------------------


def keys_of(boards: Boards) -> Keys:
    """``(N, 50)`` boards -> ``(N, 10)`` keys: the 80-bit key behind GNU Backgammon's Position ID."""
    boards = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
    pid = _kernel.position_id
    raw = b"".join(base64.b64decode(pid(b.tobytes()) + "==") for b in boards)
    return np.frombuffer(raw, dtype=np.uint8).reshape(-1, KEY_BYTES).copy()


def boards_of_keys(keys: Keys) -> Boards:
    """``(N, 10)`` keys -> ``(N, 50)`` boards (the inverse of :func:`keys_of`)."""
    keys = np.ascontiguousarray(keys, dtype=np.uint8).reshape(-1, KEY_BYTES)
    dec = _kernel.board_from_position_id
    raw = b"".join(dec(base64.b64encode(k.tobytes()).decode()[:14]) for k in keys)
    return np.frombuffer(raw, dtype=np.uint8).reshape(-1, 50).copy()


def position_id_of_key(key: bytes | npt.NDArray[np.uint8]) -> str:
    return base64.b64encode(bytes(key)).decode()[:14]


def classify(boards: Boards) -> npt.NDArray[np.uint8]:
    """Class index (:data:`CLASSES`) of each board: over, bearoff, race, crashed or contact."""
    boards = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
    out = np.full(len(boards), CONTACT, dtype=np.uint8)
    if len(boards) == 0:
        return out
    is_contact = contact(boards)
    out[is_contact & crashed(boards)] = CRASHED
    out[~is_contact] = RACE
    out[BearoffRaces.covers(boards)] = BEAROFF
    out[terminal(boards)[0]] = OVER
    return out


def counts(names: Sequence[str], column: npt.NDArray[Any]) -> dict[str, int]:
    return {name: int((column == i).sum()) for i, name in enumerate(names)}


# ---- sources --------------------------------------------------------------------------


_XGID = re.compile(r"XGID=[^\s\"'<>]+")


def match_positions(folder: str | Path, log: Log = print) -> tuple[Boards, list[dict[str, Any]]]:
    """Boards before every decision of every readable match file under ``folder`` (sorted paths),
    and one provenance row per file (path, sha256, positions or error)."""
    from pulvezar import formats
    from pulvezar.errors import PulvezarError

    readers: dict[str, list[Callable[[bytes], Any]]] = {
        ".mat": [formats.read_mat],
        ".sgf": [formats.read_sgf],
        ".xg": [formats.read_xg],
        ".xgp": [formats.read_xg],
        ".gmd": [formats.read_gmd],
        ".txt": [formats.read_gnubg_text, formats.read_mat],  # gnubg's text export, or .mat text
    }

    root = Path(folder)
    boards: list[bytes] = []
    rows: list[dict[str, Any]] = []
    if not root.is_dir():
        log(f"match files: {root} is missing; no match positions")
        return np.zeros((0, 50), dtype=np.uint8), rows
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = str(path.relative_to(root))
        row: dict[str, Any] = {"file": rel, "sha256": sha256_file(path)}
        found: list[bytes] = []
        error = None
        for reader in readers.get(path.suffix.lower(), []):
            try:
                record = reader(path.read_bytes())
                found = [d.position.board for d in record.replay()]
                error = None
                break
            except Exception as e:  # a file that fails is skipped, not fatal
                error = f"{type(e).__name__}: {e}"[:200]
        if not found:
            try:  # position lists and any other text: XGID= lines
                text = path.read_bytes().decode("utf-8", errors="replace")
            except OSError:
                text = ""
            for m in _XGID.findall(text):
                try:
                    found.append(Position.from_xgid(m).board)
                except (PulvezarError, ValueError):
                    continue
            if found:
                error = None
        row["positions"] = len(found)
        if error and not found:
            row["error"] = error
        if found or error:
            rows.append(row)
        boards.extend(found)
    got = np.frombuffer(b"".join(boards), dtype=np.uint8).reshape(-1, 50).copy()
    log(f"match files: {len(got)} positions from {sum(r['positions'] > 0 for r in rows)} files")
    return got, rows


def selfplay_block(
    evaluator: Evaluator,
    rules: Rules,
    rng: np.random.Generator,
    *,
    games: int,
    lockstep: int,
    keep: float,
    explore_rates: Sequence[float],
) -> Boards:
    """Positions (player on roll, before the roll) kept from ``games`` lockstep self-play games.

    Each game draws an exploration rate from ``explore_rates``; each move is a uniformly
    random legal play with that probability, else the 0-ply best play under ``rules``
    (Tavla: mars = 2; the evaluator's nets for ``rules``, :func:`~pulvezar.eval.evaluator.for_rules`).
    Each visited position is kept with probability ``keep``.
    """
    evaluator = for_rules(evaluator, rules)
    flags = (_kernel.HIT_AND_STOP if rules.hit_and_stop else 0) | (
        _kernel.MUST_BEAR_OFF if rules.must_bear_off else 0
    )
    rates = np.asarray(explore_rates, dtype=np.float64)
    lanes = max(1, min(lockstep, games))
    boards = np.tile(START, (lanes, 1))
    first = np.ones(lanes, dtype=bool)
    explore = rates[rng.integers(0, len(rates), size=lanes)]
    active = np.ones(lanes, dtype=bool)
    started, finished = lanes, 0
    taken: list[bytes] = []
    gen, rec = _kernel.generate, _kernel.REC
    while finished < games:
        ids = np.flatnonzero(active)
        pick = rng.random(len(ids)) < keep
        taken.extend(boards[i].tobytes() for i in ids[pick])
        dice = rng.integers(1, 7, size=(len(ids), 2))
        for q in np.flatnonzero(first[ids] & (dice[:, 0] == dice[:, 1])):  # no double opens a game
            while dice[q, 0] == dice[q, 1]:
                dice[q] = rng.integers(1, 7, size=2)
        recs = [gen(boards[i].tobytes(), int(d[0]), int(d[1]), flags) for i, d in zip(ids, dice, strict=True)]
        n = np.fromiter((len(r) // rec for r in recs), dtype=np.intp, count=len(recs))
        after = swap_boards(np.frombuffer(b"".join(recs), dtype=np.uint8).reshape(-1, rec)[:, :50])
        eq = equity(flip(evaluator.evaluate_boards(after)), rules)
        starts = np.concatenate([[0], np.cumsum(n)[:-1]])
        best = np.maximum.reduceat(eq, starts)
        u = rng.random(len(ids))
        r = rng.integers(0, 1 << 30, size=len(ids))
        for k, lane in enumerate(ids):
            s, m = int(starts[k]), int(n[k])
            if u[k] < explore[lane]:
                j = s + int(r[k] % m)
            else:
                j = s + int(np.flatnonzero(eq[s : s + m] >= best[k] - 1e-12)[0])
            nxt = after[j]
            first[lane] = False
            if int(nxt[25:].sum()) == 0:  # the mover bore off its last checker
                finished += 1
                if started < games:
                    started += 1
                    boards[lane] = START
                    first[lane] = True
                    explore[lane] = rates[rng.integers(0, len(rates))]
                else:
                    active[lane] = False
            else:
                boards[lane] = nxt
    return np.frombuffer(b"".join(taken), dtype=np.uint8).reshape(-1, 50).copy()


# ---- the build ------------------------------------------------------------------------


class CorpusBuild:
    """A corpus build in ``workdir`` (see the module docstring)."""

    def __init__(self, config: CorpusConfig, workdir: str | Path, evaluator: Evaluator | None = None):
        self.config = config
        self.workdir = Path(workdir)
        self._evaluator = evaluator

    @property
    def evaluator(self) -> Evaluator:
        if self._evaluator is None:
            from pulvezar.eval.evaluator import default_evaluator

            self._evaluator = default_evaluator()
        return self._evaluator

    def block_path(self, rules_id: int, block: int) -> Path:
        return self.workdir / "blocks" / f"{RULE_NAMES[rules_id]}-{block:05d}.npz"

    def block(self, rules_id: int, block: int) -> Keys:
        """Keys of one self-play block (computed once, then read back)."""
        path = self.block_path(rules_id, block)
        if path.exists():
            return read_npz(path)["keys"]
        cfg = self.config
        rng = np.random.default_rng(seed_of(cfg.seed, rules_id, block))
        boards = selfplay_block(
            self.evaluator,
            RULESETS[rules_id],
            rng,
            games=cfg.block_games,
            lockstep=cfg.lockstep,
            keep=cfg.keep,
            explore_rates=cfg.explore_rates,
        )
        keys = keys_of(boards[rng.permutation(len(boards))])  # a quota's cut takes all phases of play
        write_npz(path, keys=keys)
        return keys

    def build(self, log: Log = print, stop_after_blocks: int | None = None) -> dict[str, Any] | None:
        """Build (or resume) the corpus; returns its metadata, or ``None`` when stopped early (tests)."""
        cfg = self.config
        out = self.workdir / CORPUS_FILE
        if out.exists() and (self.workdir / META_FILE).exists():
            meta: dict[str, Any] = json.loads((self.workdir / META_FILE).read_text())
            return meta
        self.workdir.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        seen_cls = np.zeros((len(RULESETS), len(CLASSES)), dtype=np.int64)  # visited, before dedupe
        keys_l: list[Keys] = []
        rules_l: list[int] = []
        source_l: list[int] = []
        cls_l: list[npt.NDArray[np.uint8]] = []
        have: list[set[bytes]] = [set() for _ in RULESETS]
        blocks_done = 0

        def add(keys: Keys, rules_id: int, source: int, quota: int | None) -> int:
            boards = boards_of_keys(keys)
            c = classify(boards)
            np.add.at(seen_cls[rules_id], c, 1)
            taken: list[int] = []
            for i in np.flatnonzero(c < BEAROFF):
                if quota is not None and len(taken) >= quota:
                    break
                k = keys[i].tobytes()
                if k not in have[rules_id]:
                    have[rules_id].add(k)
                    taken.append(int(i))
            idx = np.asarray(taken, dtype=np.intp)
            keys_l.append(keys[idx])
            cls_l.append(c[idx])
            rules_l.extend([rules_id] * len(idx))
            source_l.extend([source] * len(idx))
            return len(idx)

        folder = cfg.matches or str(default_matches_dir())
        mboards, files = match_positions(folder, log)
        n_match = add(keys_of(mboards), 0, SOURCES.index("matches"), cfg.positions)
        blocks_used: dict[str, int] = {}
        targets = [(r, cfg.tavla_positions, SOURCES.index("tavla-selfplay")) for r in range(1, len(RULESETS))]
        targets.append((0, cfg.positions - n_match, SOURCES.index("selfplay")))
        for rules_id, quota, src in targets:
            got, b = 0, 0
            while got < quota:
                if not self.block_path(rules_id, b).exists():
                    if stop_after_blocks is not None and blocks_done >= stop_after_blocks:
                        return None
                    blocks_done += 1
                got += add(self.block(rules_id, b), rules_id, src, quota - got)
                b += 1
                if b % 20 == 0:
                    log(f"{RULE_NAMES[rules_id]}: {got}/{quota} after {b} blocks")
            blocks_used[RULE_NAMES[rules_id]] = b
        keys = np.concatenate(keys_l) if keys_l else np.zeros((0, KEY_BYTES), dtype=np.uint8)
        rules = np.asarray(rules_l, dtype=np.uint8)
        source = np.asarray(source_l, dtype=np.uint8)
        cls = np.concatenate(cls_l) if cls_l else np.zeros(0, dtype=np.uint8)
        order = np.random.default_rng(seed_of(cfg.seed, 99)).permutation(len(keys))
        keys, rules, source, cls = keys[order], rules[order], source[order], cls[order]
        write_npz(out, keys=keys, rules=rules, source=source, cls=cls)
        meta = {
            "config": asdict(cfg),
            "evaluator": _evaluator_name(self.evaluator),
            "matches_folder": folder,
            "match_files": files,
            "blocks": blocks_used,
            "sha256": sha256_file(out),
            "seconds": round(time.perf_counter() - t0, 1),
            **summary(keys, rules, source, cls),
            "visited_before_dedupe": {
                RULE_NAMES[r]: counts(CLASSES, np.repeat(np.arange(len(CLASSES)), seen_cls[r]))
                for r in range(len(RULESETS))
            },
        }
        write_text(self.workdir / META_FILE, json.dumps(meta, indent=2) + "\n")
        log(f"corpus: {len(keys)} positions in {meta['seconds']} s")
        return meta


def summary(
    keys: Keys, rules: npt.NDArray[np.uint8], source: npt.NDArray[np.uint8], cls: npt.NDArray[Any]
) -> dict[str, Any]:
    """Counts of a corpus: total, distinct keys, per class, per source, per rule set (and crossed)."""
    per_rules = {}
    for r, name in enumerate(RULE_NAMES):
        m = rules == r
        if m.any():
            per_rules[name] = {"positions": int(m.sum()), **counts(CLASSES[:3], cls[m])}
    per_source = {}
    for s, name in enumerate(SOURCES):
        m = source == s
        if m.any():
            per_source[name] = {"positions": int(m.sum()), **counts(CLASSES[:3], cls[m])}
    distinct = len({k.tobytes() for k in keys})
    return {
        "positions": len(keys),
        "distinct_keys": distinct,
        "distinct_rules_keys": len({bytes([r]) + k.tobytes() for r, k in zip(rules, keys, strict=True)}),
        "classes": counts(CLASSES[:3], cls),
        "sources": per_source,
        "rules": per_rules,
    }


def _evaluator_name(ev: Evaluator) -> str:
    info = getattr(ev, "info", None)
    run = getattr(info, "run", None) or {}
    sha = getattr(info, "sha256", "")
    return f"{run.get('name', type(ev).__name__)} sha256:{sha[:16]}"


def load_corpus(path: str | Path) -> dict[str, npt.NDArray[Any]]:
    """``keys``, ``rules``, ``source``, ``cls`` of a corpus file."""
    return read_npz(path)


def fields_of(cls: type) -> Iterable[str]:
    return (f.name for f in fields(cls))
