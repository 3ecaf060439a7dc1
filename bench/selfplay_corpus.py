"""Issue 45: a reproducible corpus of N distinct matches as one ``.ogxms.zst`` stream (gnubg v gnubg, noisy).

    .venv/bin/python bench/selfplay_corpus.py --points 1 --count 100 --seed 4500 \\
        --out tests/formats/data/ogxm/selfplay-100x1p.ogxms.zst
    .venv/bin/python bench/selfplay_corpus.py --points 5 --count 100 --seed 4550 \\
        --out bench/data/selfplay-100x5p.ogxms.zst

The Debian gnubg CLI (``/usr/games/gnubg -t -q -r -p SCRIPT``, its embedded Python) plays both sides at
0 ply, chequer play with noise of standard deviation ``--noise`` (0.06; deterministic, gnubg's default),
one thread; match ``i`` (0-based) is played after ``set seed SEED+i`` (gnubg's dice from that seed), so the
same gnubg build remakes the same matches.  Each is exported as a ``.mat``, read back by pulvezar
(:func:`pulvezar.formats.files.read_match`), its players renamed ``gnubg-a``/``gnubg-b``, tagged with its
seed (the export's date tags dropped, so a remake is byte-identical) and appended with
:func:`pulvezar.formats.ogxm.write_ogxm_stream`; the stream is compressed as one zstd frame (level 19).
The matches must be distinct (their move lists differ), else it fails.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import subprocess
import sys
import tempfile
from pathlib import Path

GNUBG = "/usr/games/gnubg"

SCRIPT = """
import gnubg
for c in {setup!r}:
    gnubg.command(c)

def score(n):
    won = {{}}
    for g in gnubg.match(analysis=0, boards=0, statistics=0, verbose=0).get("games", []):
        w = g["info"].get("winner")
        if w is not None:
            won[w] = won.get(w, 0) + g["info"].get("points-won", 0)
    return max(won.values(), default=0)

for i in range({count}):
    gnubg.command("set seed %d" % ({seed} + i))
    gnubg.command("new match {points}")
    for _ in range(5000):
        if score({points}) >= {points}:
            break
        gnubg.command("play")
    else:
        raise SystemExit("match %d did not end" % i)
    gnubg.command("export match mat {out}/m%04d.mat" % i)
"""


def gnubg_setup(noise: float) -> list[str]:
    lines = ["set threads 1", "set display off", "set player 0 gnubg", "set player 1 gnubg"]
    for p in (0, 1):
        lines += [
            f"set player {p} chequerplay evaluation plies 0",
            f"set player {p} cubedecision evaluation plies 0",
            f"set player {p} chequerplay evaluation noise {noise}",
        ]
    return lines


def make(points: int, count: int, seed: int, noise: float) -> bytes:
    """The compressed stream of ``count`` self-play matches (see the module's docstring)."""
    import zstandard

    from pulvezar.formats.files import read_match
    from pulvezar.formats.ogxm import write_ogxm_stream

    with tempfile.TemporaryDirectory(prefix="selfplay-") as tmp:
        script = Path(tmp) / "play.py"
        setup = gnubg_setup(noise)
        script.write_text(SCRIPT.format(setup=setup, count=count, seed=seed, points=points, out=tmp))
        run = subprocess.run(
            [GNUBG, "-t", "-q", "-r", "-p", str(script)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=3600,
        )
        files = sorted(Path(tmp).glob("m*.mat"))
        if len(files) != count:
            tail = (run.stdout + run.stderr)[-2000:].decode(errors="replace")
            raise RuntimeError(f"gnubg wrote {len(files)} of {count} matches:\n{tail}")
        records = []
        for i, f in enumerate(files):
            rec = read_match(f)
            tags = {k: v for k, v in rec.tags.items() if "date" not in k.lower()}  # no date: remade alike
            tags["Event"] = f"gnubg self-play, seed {seed + i}"
            records.append(dataclasses.replace(rec, players=("gnubg-a", "gnubg-b"), tags=tags))
    moves = {repr([g.actions for g in r.games]) for r in records}
    if len(moves) != count:
        raise RuntimeError(f"only {len(moves)} distinct matches of {count}")
    buf = io.BytesIO()
    write_ogxm_stream(records, buf)
    return bytes(zstandard.ZstdCompressor(level=19).compress(buf.getvalue()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--points", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=4500)
    ap.add_argument("--noise", type=float, default=0.06)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    data = make(args.points, args.count, args.seed, args.noise)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(data)
    print(f"{args.out}: {args.count} matches of {args.points} points, {len(data):,} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
