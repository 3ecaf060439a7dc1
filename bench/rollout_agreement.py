"""Rollout agreement: pulvezar's rollouts against gnubg 1.07's own, at comparable settings.

For each of the 15 opening rolls, pulvezar's 0-ply best play, and for a set of
race positions (inside the two-sided and the one-sided bear-off coverage, and
longer races), the position is rolled out by pulvezar and by Debian gnubg: 0-ply
chequer play, cubeless, variance reduction, the same number of trials.  gnubg
runs as one process with one command file for all positions (``eval`` at 0-ply
then ``rollout`` per position), under a pseudo-terminal because it prints
rollout results only to a terminal; it runs while pulvezar rolls out.

Per position the table shows both equities with their standard errors, the
difference in units of the combined SE ``z = (p - g) / hypot(se_p, se_g)``, and
the 0-ply cubeless equity difference of the two nets (``SE_FLOOR`` bounds the
combined SE from below, for positions both programs roll out exactly).  The nets *agree* on a
position when their 0-ply equities differ by at most ``--net-threshold``
(default 0.02); the summary is the fraction of those positions with ``|z| <= 2``.
Equities of opening plays are for the player who played; of race positions, for
the player on roll.

``--diagnose`` instead rolls out the lopsided races (``LOPSIDED``) in pulvezar's
engine four ways on the same dice: pulvezar's 0-ply play for both sides, gnubg-nn's
0-ply play for both (:func:`gnubg_chooser`), and each program playing one side
(:func:`side_chooser`), each with and without variance reduction, next to gnubg's own
rollout.  Finding (2026-11-29, 1296 trials): with gnubg-nn's play pulvezar's engine
reproduces gnubg's rollouts to 1e-4; the leader's surplus in pulvezar's own rollouts
(0.005-0.014) comes entirely from pulvezar's play of the *trailer*'s side, and the
variance-reduced means equal the plain ones within noise.

    .venv/bin/python bench/rollout_agreement.py --trials 144
    .venv/bin/python bench/rollout_agreement.py --diagnose --trials 1296
"""

from __future__ import annotations

import argparse
import math
import os
import pty
import re
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import torch

from pulvezar import Position, Rules
from pulvezar.eval.evaluator import (
    Boards,
    Evaluator,
    NetEvaluator,
    Probs,
    default_evaluator,
    equity,
    flip,
    terminal,
)
from pulvezar.rollouts import Chooser, difference_noise, greedy_chooser, rollout

GNUBG = "/usr/games/gnubg"
#: floor of the combined SE: gnubg prints 5 decimals, and exact bear-off values still differ by
#: ~1e-4 where the one-sided race tables of the two programs differ in detail
SE_FLOOR = 5e-4
NO_DICE_MATCH_ID = "cAkAAAAAAAAA"  # money game, player 1 on roll, dice not rolled
OPENING_ROLLS = [(a, b) for a in range(2, 7) for b in range(1, a)]

#: race positions (side on roll first; checkers not listed are borne off)
RACES: list[tuple[str, Position]] = [
    ("two-sided 5v5", Position.from_points({3: 2, 2: 2, 1: 1}, {4: 1, 3: 2, 1: 2})),
    ("two-sided 6v6", Position.from_points({6: 2, 5: 1, 4: 2, 2: 1}, {5: 2, 3: 2, 2: 2})),
    ("one-sided 9v8", Position.from_points({6: 2, 5: 2, 3: 3, 1: 2}, {6: 3, 4: 2, 2: 2, 1: 1})),
    (
        "one-sided 15v15",
        Position.from_points({6: 4, 5: 3, 4: 3, 3: 2, 2: 2, 1: 1}, {6: 3, 5: 3, 4: 3, 3: 3, 2: 2, 1: 1}),
    ),
    ("race 13v13", Position.from_points({6: 3, 5: 3, 4: 3, 8: 2, 9: 2}, {6: 4, 5: 3, 3: 3, 10: 2, 11: 1})),
    (
        "race 15v15 a",
        Position.from_points({6: 3, 5: 3, 4: 2, 8: 3, 10: 2, 11: 2}, {6: 3, 5: 2, 4: 3, 7: 2, 9: 2, 12: 3}),
    ),
    (
        "race 15v15 b",
        Position.from_points({12: 3, 11: 2, 9: 2, 6: 4, 5: 4}, {12: 2, 10: 3, 8: 3, 6: 3, 4: 2, 3: 2}),
    ),
    ("race gammonish", Position.from_points({12: 3, 11: 3, 10: 3, 9: 3, 8: 3}, {6: 2, 5: 2, 3: 2})),
    ("race 60v90", Position.from_points({6: 3, 5: 3, 4: 3, 3: 3, 2: 3}, {8: 3, 7: 3, 6: 3, 5: 3, 4: 3})),
    ("race 96v54", Position.from_points({9: 3, 8: 3, 6: 3, 5: 3, 4: 3}, {6: 3, 5: 3, 4: 3, 3: 3})),
]


#: lopsided races where pulvezar's and gnubg's 0-ply race play differ for the trailer (see --diagnose)
LOPSIDED: list[tuple[str, Position]] = [
    ("race 60v90", Position.from_points({6: 3, 5: 3, 4: 3, 3: 3, 2: 3}, {8: 3, 7: 3, 6: 3, 5: 3, 4: 3})),
    ("race 96v54", Position.from_points({9: 3, 8: 3, 6: 3, 5: 3, 4: 3}, {6: 3, 5: 3, 4: 3, 3: 3})),
    (
        "race 102v66",
        Position.from_points({11: 2, 9: 2, 7: 3, 6: 3, 5: 3, 4: 2}, {6: 4, 5: 4, 4: 3, 3: 2, 2: 2}),
    ),
]


def _gnubg_board(board: npt.NDArray[np.uint8]) -> list[list[int]]:
    """gnubg-nn's board (opponent first, then the side on roll) of a pulvezar board."""
    return [board[25:50].tolist(), board[0:25].tolist()]


class GnubgChooser:
    """A rollout chooser that plays gnubg-nn's 0-ply best move and reports gnubg-nn's 0-ply
    probabilities after it (exact for finished games), memoised per (board, roll)."""

    def __init__(self) -> None:
        import gnubg_nn

        self._g = gnubg_nn
        self._memo: dict[tuple[bytes, int, int], tuple[npt.NDArray[np.uint8], Probs]] = {}

    def __call__(
        self, boards: Boards, dice: npt.NDArray[np.int64], rules: Rules, ev: Evaluator
    ) -> tuple[Boards, Probs]:
        g = self._g
        nxt = np.empty_like(boards)
        probs = np.empty((len(boards), 5))
        for i, (b, d) in enumerate(zip(boards, dice, strict=True)):
            key = (b.tobytes(), int(max(d)), int(min(d)))
            hit = self._memo.get(key)
            if hit is None:
                mover, opp = g.board_from_position_key(
                    g.best_move(_gnubg_board(b), int(d[0]), int(d[1]), b=1)[1]
                )
                after = np.array(list(opp) + list(mover), dtype=np.uint8)  # the opponent on roll
                done, exact = terminal(after[None])
                p = exact if done[0] else np.array([g.probabilities([list(mover), list(opp)], 0)])
                hit = self._memo[key] = (after, flip(p)[0])
            nxt[i], probs[i] = hit
        return nxt, probs


def gnubg_chooser() -> Chooser:
    """gnubg-nn's 0-ply chequer play as a pulvezar rollout chooser."""
    return GnubgChooser()


def side_chooser(first: Chooser, second: Chooser) -> Chooser:
    """``first`` plays for the side on roll at the start, ``second`` for the other side.

    For one :func:`~pulvezar.rollouts.rollout` call: its trials run in lockstep and the
    engine asks the chooser once per half-move, so the calls alternate between the sides.
    """
    calls = [0]

    def choose(
        boards: Boards, dice: npt.NDArray[np.int64], rules: Rules, ev: Evaluator
    ) -> tuple[Boards, Probs]:
        c = first if calls[0] % 2 == 0 else second
        calls[0] += 1
        return c(boards, dice, rules, ev)

    return choose


@dataclass(frozen=True)
class GnubgResult:
    position_id: str
    static_equity: float  # 0-ply cubeless equity, side on roll
    equity: float  # rollout's cubeless equity, side on roll
    se: float


def gnubg_script(position_ids: Sequence[str], trials: int, seed: int) -> str:
    """One command file: settings, then ``eval`` + ``rollout`` per position (player 1 on roll)."""
    cmds = [
        "set threads 1",
        "set output digits 5",
        f"set rollout trials {trials}",
        "set rollout cubeful off",
        "set rollout varredn on",
        "set rollout quasirandom on",
        "set rollout chequerplay plies 0",
        f"set rollout seed {seed}",
        "set evaluation chequerplay evaluation plies 0",
        "set evaluation cubedecision evaluation plies 0",
    ]
    for pid in position_ids:
        cmds += ["new game", "set turn 1", f"set board {pid}", "eval", "rollout"]
    return "\n".join(cmds) + "\n"


_NUM = r"([+-]?\d+\.\d+)"
_STATIC = re.compile(r"static:" + r"\s+\d\.\d+" * 5 + r"\s+" + _NUM)
_RESULT = re.compile(r"CL\s+" + _NUM + r"\s*\n\s*\[[^\]]*CL\s+" + _NUM + r"\]")


def parse_gnubg(text: str, position_ids: Sequence[str]) -> list[GnubgResult]:
    """The ``eval`` and final ``rollout`` results per position, in command-file order."""
    blocks = text.split("Evaluating position...")[1:]
    if len(blocks) != len(position_ids):
        raise RuntimeError(f"gnubg printed {len(blocks)} evaluations for {len(position_ids)} positions")
    out = []
    for pid, block in zip(position_ids, blocks, strict=True):
        got = re.search(r"Position ID:\s*(\S+)", block)
        mid = re.search(r"Match ID:\s*(\S+)", block)
        static = _STATIC.search(block)
        done = block.split("Rollout done. Printing final results.")
        if not (got and mid and static and len(done) == 2):
            raise RuntimeError(f"cannot parse gnubg's output for {pid}:\n{block[:2000]}")
        if got.group(1) != pid or mid.group(1) != NO_DICE_MATCH_ID:
            raise RuntimeError(f"gnubg evaluated {got.group(1)}:{mid.group(1)}, not {pid}:{NO_DICE_MATCH_ID}")
        res = _RESULT.search(done[1])
        if res is None:
            raise RuntimeError(f"no rollout result for {pid}:\n{done[1][:2000]}")
        out.append(GnubgResult(pid, float(static.group(1)), float(res.group(1)), float(res.group(2))))
    return out


class GnubgRun:
    """gnubg running a command file under a pseudo-terminal; :meth:`results` waits for it."""

    def __init__(self, position_ids: Sequence[str], trials: int, seed: int = 1) -> None:
        self.position_ids = list(position_ids)
        fd, self._path = tempfile.mkstemp(suffix=".gnubg")
        with os.fdopen(fd, "w") as f:
            f.write(gnubg_script(self.position_ids, trials, seed))
        master, slave = pty.openpty()
        self.t0 = time.perf_counter()
        self._proc = subprocess.Popen(
            [GNUBG, "-t", "-q", "-r", "-c", self._path], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave
        )
        os.close(slave)
        self._master = master
        self._chunks: list[bytes] = []
        self._reader = threading.Thread(target=self._read, daemon=True)  # drain the pty as gnubg writes
        self._reader.start()
        self.seconds = 0.0

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self._master, 65536)
            except OSError:
                break
            if not data:
                break
            self._chunks.append(data)

    def results(self, timeout: float | None = None) -> list[GnubgResult]:
        try:
            self._proc.wait(timeout)
        finally:
            if self._proc.poll() is None:
                self._proc.kill()
                self._proc.wait()
            self._reader.join(5)
            os.close(self._master)
            os.unlink(self._path)
        self.seconds = time.perf_counter() - self.t0
        text = b"".join(self._chunks).decode(errors="replace").replace("\r", "")
        return parse_gnubg(text, self.position_ids)


def static_equity(ev: NetEvaluator, pos: Position, rules: Rules) -> float:
    """Pulvezar's 0-ply cubeless equity for the player on roll."""
    return float(equity(ev.evaluate_batch([pos]), rules)[0])


def diagnose(trials: int, seed: int) -> None:
    """The lopsided races rolled out with each program playing each side (see the module notes)."""
    ev, rules = default_evaluator(), Rules.international()
    gnubg = GnubgRun([pos.position_id for _, pos in LOPSIDED], trials, seed)
    print(f"{len(LOPSIDED)} lopsided races, {trials} trials, seed {seed}; chequer play: side on roll / other")
    print("(pz: pulvezar 0-ply, gn: gnubg-nn 0-ply; values at bear-off stops: pulvezar's exact tables)\n")
    for label, pos in LOPSIDED:
        gn = gnubg_chooser()
        ways = [("pz/pz", greedy_chooser, greedy_chooser), ("gn/gn", gn, gn)]
        ways += [("pz/gn", greedy_chooser, gn), ("gn/pz", gn, greedy_chooser)]
        print(f"{label} ({pos.position_id}), equity of the side on roll:")
        for name, first, second in ways:
            # side_chooser counts calls: a fresh one per rollout
            vr, plain = (
                rollout(
                    pos,
                    trials=trials,
                    seed=seed,
                    evaluator=ev,
                    rules=rules,
                    variance_reduction=v,
                    chooser=first if first is second else side_chooser(first, second),
                )
                for v in (True, False)
            )
            print(
                f"  {name}  VR {vr.equity:+.5f} +- {vr.noise:.5f}"
                f"  plain {plain.equity:+.5f} +- {plain.noise:.5f}"
                f"  VR - plain {vr.equity - plain.equity:+.5f} +- {difference_noise(vr, plain):.5f}"
            )
    for (label, _), g in zip(LOPSIDED, gnubg.results(), strict=True):
        print(f"{label}: gnubg's own rollout {g.equity:+.5f} +- {g.se:.5f} (0-ply {g.static_equity:+.5f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=144)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--net-threshold", type=float, default=0.02)
    ap.add_argument("--no-openings", action="store_true")
    ap.add_argument(
        "--diagnose", action="store_true", help="the lopsided races, each side played by each program"
    )
    args = ap.parse_args()
    torch.set_num_threads(1)  # gnubg runs alongside on the other core
    if args.diagnose:
        diagnose(args.trials, args.seed)
        return
    rules, ev = Rules.international(), default_evaluator()
    start = Position.start()
    # (label, position with the side of interest's opponent or itself on roll, sign to the side of interest)
    rows: list[tuple[str, Position, int]] = []
    if not args.no_openings:
        for d in OPENING_ROLLS:
            play = ev.best_play(start, d, rules)
            rows.append((f"{d[0]}{d[1]} {play.notation}", play.position.swap(), -1))
    rows += [(label, pos, 1) for label, pos in RACES]
    pids = [pos.position_id for _, pos, _ in rows]
    print(f"{len(rows)} positions, {args.trials} trials each, 0-ply, cubeless, VR, seed {args.seed}")
    gnubg = GnubgRun(pids, args.trials, args.seed)
    t0 = time.perf_counter()
    ours = [rollout(pos, trials=args.trials, seed=args.seed, evaluator=ev, rules=rules) for _, pos, _ in rows]
    dt_p = time.perf_counter() - t0
    theirs = gnubg.results()
    print(f"pulvezar {dt_p:.0f} s, gnubg {gnubg.seconds:.0f} s (ran concurrently)\n")
    head = f"{'position':<26} {'id':<15} {'pulvezar':>17} {'gnubg':>17} {'z':>6} {'0-ply d':>8} nets"
    print(head)
    print("-" * len(head))
    agreeing = within = 0
    for (label, pos, sign), r, g in zip(rows, ours, theirs, strict=True):
        z = (r.equity - g.equity) / max(math.hypot(r.equity_se, g.se), SE_FLOOR)
        d0 = static_equity(ev, pos, rules) - g.static_equity
        nets = abs(d0) <= args.net_threshold
        if nets:
            agreeing += 1
            within += abs(z) <= 2
        print(
            f"{label:<26} {pos.position_id:<15} {sign * r.equity:+.4f} ± {r.equity_se:.4f} "
            f"{sign * g.equity:+.4f} ± {g.se:.4f} {sign * z:+6.2f} {sign * d0:+8.4f} "
            f"{'agree' if nets else 'differ'}"
        )
    print(
        f"\nnets agree (|0-ply d| <= {args.net_threshold}) on {agreeing}/{len(rows)} positions; "
        f"of those {within}/{agreeing} ({within / max(agreeing, 1):.0%}) agree within 2 combined SE"
    )


if __name__ == "__main__":
    main()
