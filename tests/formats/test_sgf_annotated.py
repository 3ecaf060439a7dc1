"""The annotated SGF export: pulvezar's match analysis in GNU Backgammon's properties.

The oracle test has the Debian GNU Backgammon CLI load the annotated file and
``export match text``: the moves it replays must be ours (the Position ID
before every play), and it shows back what it read of our analysis -- the
candidates with our equities (``A``), the cube figures (``DA``), the luck of
each roll (``LU``), our comment (``C``, under "Annotation:") and, in the match's comment (``GC``), the
net and settings that made the analysis.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pulvezar.analysis.match import AnalysisSettings, MatchAnalysis, analyse_match, annotated_sgf
from pulvezar.eval.provenance import EngineInfo
from pulvezar.formats import read_mat
from pulvezar.formats.record import MatchRecord
from pulvezar.formats.sgf import ANALYSIS_PROPS, annotate, read_sgf

DATA = Path(__file__).parent / "data"
GNUBG_CLI = "/usr/games/gnubg"


@pytest.fixture(scope="module")
def analysed() -> tuple[MatchRecord, MatchAnalysis]:
    rec = read_mat((DATA / "7point.mat").read_bytes())
    rec = dataclasses.replace(rec, games=rec.games[:3])  # three games: plays, doubles, a take, a drop
    return rec, analyse_match(rec, AnalysisSettings.from_level("0ply"))


def test_annotate_replaces_analysis_and_keeps_comments() -> None:
    rec = read_sgf((DATA / "test.sgf").read_bytes())  # written by gnubg, with its analysis
    ai = next(i for i, a in enumerate(rec.games[0].actions) if a.kind == "play" and "A" in a.props)
    old = rec.games[0].actions[ai].props
    new = annotate(rec, {(0, ai): {"A": ["0"], "C": ["ours"]}})
    props = new.games[0].actions[ai].props
    assert props["A"] == ["0"]
    assert not (ANALYSIS_PROPS - {"A"}) & set(props)
    assert props["C"][-1].endswith("ours")
    assert rec.games[0].actions[ai].props == old  # the record itself is untouched
    assert [a.notation for a in new.games[0].actions] == [a.notation for a in rec.games[0].actions]


def test_annotated_sgf_reads_back(analysed: tuple[MatchRecord, MatchAnalysis]) -> None:
    rec, ma = analysed
    back = read_sgf(annotated_sgf(rec, ma))
    assert back.cut_games == 0
    for g, h in zip(rec.games, back.games, strict=True):
        assert h.actions == g.actions  # the same match (props are not compared)
    by_index = {(g.index, d.index): d for g in ma.games for d in g.decisions}
    checked = 0
    for gi, g in enumerate(back.games):
        for ai, a in enumerate(g.actions):
            d = by_index.get((gi, ai))
            if d is None or d.kind != "checker":
                continue
            assert d.luck is not None and a.props["LU"] == [f"{d.luck.value:.5f}"]
            assert "pulvezar:" in a.props["C"][0] or d.forced
            if not d.forced:
                first, *cands = a.props["A"]
                assert len(cands) == len(d.candidates)
                assert d.candidates[int(first)].notation == d.played
                assert f" {d.candidates[0].equity:.6f} " in cands[0]
                if d.mark == "blunder":
                    assert a.props["BM"] == ["2"]
                checked += 1
    assert checked > 20
    cube_nodes = [a for g in back.games for a in g.actions if "DA" in a.props]
    assert cube_nodes


def test_annotated_sgf_names_its_net_and_settings(analysed: tuple[MatchRecord, MatchAnalysis]) -> None:
    rec, ma = analysed
    engine = EngineInfo.from_json(ma.engine)
    assert engine.model and engine.model_sha256  # the analysis's own net, by name and SHA-256
    text = annotated_sgf(rec, ma)
    line = (
        f"Analysed by pulvezar {engine.version} with the net {engine.model} (SHA-256 {engine.model_sha256})"
    )
    settings = "level 0ply: checker plays 0-ply, filter normal, cube 0-ply, luck 0-ply."
    assert text.count("GC[") == 1 and f"GC[{line}; {settings}]" in text.split("\n", 1)[0]  # game 1's root
    back = read_sgf(text)
    assert back.tags["GC"] == f"{line}; {settings}"
    # annotated again: the file's own comment stays, the old provenance line is replaced, not repeated
    own = dataclasses.replace(back, tags={**back.tags, "GC": "from the club\n" + back.tags["GC"]})
    deeper = dataclasses.replace(ma, settings=AnalysisSettings.from_level("2ply", prune=False))
    assert read_sgf(annotated_sgf(own, deeper)).tags["GC"] == "\n".join(
        ["from the club", f"{line}; level 2ply: checker plays 2-ply, filter normal, cube 2-ply, luck 0-ply, "
         "unpruned search."]
    )  # fmt: skip


# ---- gnubg as the reader ---------------------------------------------------------------------


def _gnubg_export(sgf: Path, workdir: Path) -> list[str]:
    commands = workdir / "commands"
    commands.write_text(f"load match {sgf}\nexport match text {workdir / 'out.txt'}\n", encoding="utf-8")
    subprocess.run(
        [GNUBG_CLI, "-t", "-q", "-r", "-c", str(commands)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
        check=True,
    )
    files = [workdir / "out.txt", *sorted(workdir.glob("out_*.txt"))]  # one file per game
    return [f.read_text(encoding="utf-8", errors="replace") for f in files]


@pytest.mark.oracle
@pytest.mark.skipif(shutil.which(GNUBG_CLI) is None, reason="Debian gnubg CLI not installed")
def test_gnubg_opens_the_annotated_sgf(analysed: tuple[MatchRecord, MatchAnalysis], tmp_path: Path) -> None:
    rec, ma = analysed
    path = tmp_path / "annotated.sgf"
    path.write_text(annotated_sgf(rec, ma), encoding="utf-8")
    texts = _gnubg_export(path, tmp_path)
    assert len(texts) == len(rec.games)
    shown_luck = shown_eq = shown_cube = comments = 0
    for g, text in zip(ma.games, texts, strict=True):
        blocks = re.split(r"\nMove number \d+:", text)[1:]
        plays = [b for b in blocks if " to play " in b.splitlines()[0]]
        ours = [d for d in g.decisions if d.kind == "checker"]
        assert len(plays) == len(ours), f"game {g.index}"
        for block, d in zip(plays, ours, strict=True):
            pid = re.search(r"Position ID: (\S+)", block)
            assert pid is not None and pid.group(1) == d.position_id, f"game {g.index} move {d.move}"
            luck = re.search(r"Rolled \d\d \(([+-]\d\.\d{3})\)", block)
            if luck is not None and d.luck is not None:
                assert float(luck.group(1)) == pytest.approx(d.luck.value, abs=6e-4)
                shown_luck += 1
            best = re.search(r"\*?\s+1\. Cubeful \d-ply\s+(.+?)\s+Eq\.: ([+-]\d\.\d{3})", block)
            if best is not None and not d.forced:
                assert float(best.group(2)) == pytest.approx(d.candidates[0].equity, abs=6e-4)
                shown_eq += 1
            nd = re.search(r"1\. No double\s+([+-]\d\.\d{3})", block)
            cube = next((c for c in g.decisions if c.kind == "double" and c.move == d.move), None)
            if nd is not None and cube is not None and cube.cube is not None:
                assert float(nd.group(1)) == pytest.approx(cube.cube.nd, abs=6e-4)
                shown_cube += 1
            comments += "Annotation:\npulvezar" in block
    assert shown_luck > 20 and shown_eq > 20 and shown_cube > 10 and comments > 20
    engine = EngineInfo.from_json(ma.engine)
    assert (
        f"Comments: Analysed by pulvezar {engine.version} with the net {engine.model} (SHA-256 " in texts[0]
    )


def test_stored_analysis_reader_recovers_our_pr(analysed: tuple[MatchRecord, MatchAnalysis]) -> None:
    """The reader of stored gnubg analyses, given our annotated SGF, finds our PR (gnubg's units)."""
    stored = pytest.importorskip("pulvezar.formats.stored_analysis")
    rec, ma = analysed
    prs = stored.stored_pr(read_sgf(annotated_sgf(rec, ma)))
    for p in (0, 1):
        assert prs[p] == pytest.approx(ma.stats(p)["pr"], abs=1e-3)
