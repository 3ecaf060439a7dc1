"""``pulvezar.analysis`` loads its heavy parts on first use: a similar-position query needs no PyTorch."""

from __future__ import annotations

import subprocess
import sys


def _fresh(code: str) -> str:
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_similar_position_query_imports_no_torch() -> None:
    code = (
        "import sys\n"
        "from pulvezar import Position\n"
        "from pulvezar.archive import ArchiveEntry, ArchiveIndex\n"
        "import pulvezar.analysis.classify, pulvezar.analysis.rating\n"
        "from pulvezar.analysis import classify, PositionType\n"
        "ps = [Position.start(), Position.from_points({6: 5}, {1: 2})]\n"
        "idx = ArchiveIndex(ArchiveEntry(f'e{i}', p.position_id) for i, p in enumerate(ps))\n"
        "assert idx.query(Position.start(), limit=1)[0].entry.id == 'e0'\n"
        "print('torch' in sys.modules)\n"
    )
    assert _fresh(code) == "False"


def test_the_package_names_are_the_functions() -> None:
    import pulvezar.analysis as analysis
    from pulvezar.analysis import explain, shots
    from pulvezar.analysis.classify import classify
    from pulvezar.analysis.explain import explain as explain_fn
    from pulvezar.analysis.match import analyse_match
    from pulvezar.analysis.shots import shots as shots_fn

    assert explain is explain_fn and shots is shots_fn and analysis.classify is classify
    assert analysis.analyse_match is analyse_match
    assert all(hasattr(analysis, name) for name in analysis.__all__)
