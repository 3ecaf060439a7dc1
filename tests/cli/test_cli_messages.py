"""The CLI's messages come from the catalogs (issue 44): no user command prints a wording of its own, and
the commands speak the language of ``--lang``, the profile's ``lang`` or the environment (docs/cli.md).

(a) walks the syntax trees of the user commands' modules: a string literal with words passed to print(),
an error (Refused, SystemExit, PulvezarError...), parser.error() or sys.stderr.write(), or any f-string with
words outside a catalog lookup and argparse's help, is a finding unless allowed below with its reason;
(b) runs commands through ``pulvezar.cli.main`` in German, Turkish and Russian and finds the catalogs' texts
(``pulvezar play`` with scripted standard input among them).
"""

from __future__ import annotations

import ast
import functools
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from pulvezar import i18n
from pulvezar.cli import main

CLI = Path(i18n.__file__).parent / "cli"
#: the user commands' modules; train.py and external.py are developer tools (English, docs/cli.md)
USER_MODULES = (
    "__init__", "board", "book", "cards", "common", "config", "engine", "match", "met", "play", "progress",
    "rollout",
)  # fmt: skip
#: (module, function): why its words may stay as they are
ALLOWED = {
    ("__init__", "version_line"): "the --version line: program, version and model, read by tools",
    ("book", "_print_progress"): "book generation's log lines: a developer tool",
    ("book", "_developer_tool"): "book generate/status/pack/unpack/compare/contrast: developer tools",
    ("cards", "match_ref"): "an id (match:<hash>), not a message",
    ("common", "parse_dice"): "an argparse type error: argparse's own lines stay English like --help",
    ("config", "default_player"): "a TOML key named in a message from the catalog",
    ("match", "_convert_stream"): "an example file name (match-{n}.sgf) put into a catalog message",
    ("play", "problem"): "the platform's own answer (its problem detail and fields, or the HTTP status line)",
    ("play", "_path"): "a URL path of the Play API",
    (
        "play",
        "_resign_command",
    ): "a command as it is typed (resign [single|gammon]): English in every language",
}
#: the calls whose text a person reads
SAYS = {
    "print",
    "Refused",
    "SystemExit",
    "PulvezarError",
    "CliError",
    "FileError",
    "InvalidIdError",
    "error",
    "write",
}
WORD = re.compile(r"[^\W\d_]{2,}")
OPTION = re.compile(r"--[\w-]+")
START = "4HPwATDgc/ABMA"


def _name(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _words(node: ast.AST) -> list[str]:
    """The literal texts with words in ``node``, leaving out catalog lookups (``t(...)``), help texts,
    JSON (``json.dumps``), format specs, subscripts (``data["key"]``) and keyword arguments (``file=``,
    ``field=``)."""
    found: list[str] = []

    def visit(n: ast.AST) -> None:
        if isinstance(n, ast.Call) and (_name(n) in ("t", "dumps") or _name(n).startswith("add_")):
            return  # a catalog lookup, JSON (machine-readable), argparse's help
        if isinstance(n, ast.Subscript):
            visit(n.value)
            return
        if isinstance(n, ast.keyword):
            return
        if isinstance(n, ast.FormattedValue):
            visit(n.value)
            return
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and WORD.search(OPTION.sub("", n.value)):
            found.append(n.value)
        for child in ast.iter_child_nodes(n):
            visit(child)

    visit(node)
    return found


def findings(source: str, module: str) -> list[str]:
    """``module:line function: text`` for each wording of its own that ``source`` shows a person."""
    out: dict[tuple[int, str], str] = {}

    def check(node: ast.AST, function: str) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            body = node.body[1:] if ast.get_docstring(node) is not None else node.body
            for stmt in body:
                check(stmt, node.name)
            return
        if isinstance(node, ast.Call) and (_name(node) == "t" or _name(node).startswith("add_")):
            return
        said: list[str] = []
        if isinstance(node, ast.Call) and _name(node) in SAYS:
            said = [w for a in node.args for w in _words(a)]
        elif isinstance(node, ast.JoinedStr):
            said = _words(node)
        if (module, function) not in ALLOWED:
            out.update({(node.lineno, w): f"{module}:{node.lineno} {function}: {w!r}" for w in said})
        if not isinstance(node, ast.JoinedStr):
            for child in ast.iter_child_nodes(node):
                check(child, function)

    tree = ast.parse(source)
    for stmt in tree.body[1:] if ast.get_docstring(tree) is not None else tree.body:
        check(stmt, "<module>")
    return sorted(set(out.values()))


def test_the_checker_finds_a_wording_and_passes_a_lookup() -> None:
    bad = 'def f(e):\n    print(f"{e} cards written")\n    raise PulvezarError("no dice")\n'
    bad += '    x = f"game {e}"\n'
    assert len(findings(bad, "m")) == 3
    good = (
        'def f(e, lang):\n    print(t("cli.x.y", lang, n=e))\n    print(f"{e:>4}. {e}", file=sys.stderr)\n'
        '    raise PulvezarError(f"{e}: {e.strerror}", field="config")\n    print(f"--chunk-size: {e}")\n'
        '    p.add_argument("--x", help=f"the depth 0..{e}")\n'
    )
    assert findings(good, "m") == []


@pytest.mark.parametrize("module", USER_MODULES)
def test_no_user_command_prints_a_wording_of_its_own(module: str) -> None:
    assert findings((CLI / f"{module}.py").read_text(encoding="utf-8"), module) == []


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def no_profile(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No profile and an English environment; the profile's path is returned for a test to write."""
    monkeypatch.setenv("PULVEZAR_CONFIG", str(tmp_path / "config.toml"))
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    return tmp_path / "config.toml"


def test_moves_and_an_error_in_german(capsys: pytest.CaptureFixture[str], no_profile: Path) -> None:
    code, out, _ = run(capsys, "moves", START, "--dice", "31", "--lang", "de")
    n = len(json.loads(run(capsys, "moves", START, "--dice", "31", "--json", "--lang", "de")[1])["plays"])
    heading = i18n.t("cli.moves.heading", "de", n=n, dice="31", rules="international", id=START)
    assert code == 0 and out.splitlines()[0] == heading and "regelgerechte Züge" in heading
    code, _, err = run(capsys, "hint", START, "--lang", "de")
    no_dice = i18n.t("cli.common.error", "de", error=i18n.t("cli.hint.no_dice", "de"))
    assert code == 2 and err == no_dice + "\n" and err.startswith("pulvezar: Fehler: ")


def test_met_in_turkish_with_its_decimal_sign(capsys: pytest.CaptureFixture[str], no_profile: Path) -> None:
    code, out, _ = run(capsys, "met", "--length", "5", "--score", "1", "2", "--lang", "tr")
    data = json.loads(run(capsys, "met", "--length", "5", "--score", "1", "2", "--json", "--lang", "tr")[1])
    pct = i18n.t("cli.common.percent", "tr", x=i18n.number(100 * data["mwc"], "tr", ".1f"))
    assert code == 0 and i18n.t("cli.met.mwc", "tr", pct=pct) in out.splitlines()
    assert pct.startswith("%") and "," in pct, "Turkish: %42,9"
    assert i18n.t("cli.met.heading", "tr", table="", what="").strip() in out


def test_the_language_from_the_environment_the_profile_and_lang(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, no_profile: Path
) -> None:
    def heading(*argv: str) -> str:
        return run(capsys, "moves", START, "--dice", "52", *argv)[1].splitlines()[0]

    def expected(lang: str) -> str:
        return i18n.t("cli.moves.heading", lang, n=8, dice="52", rules="international", id=START)

    monkeypatch.setenv("LANG", "ru_RU.UTF-8")
    assert heading() == expected("ru")
    no_profile.write_text('lang = "tr"\n', encoding="utf-8")
    assert heading() == expected("tr"), "the profile's lang before the environment's"
    assert heading("--lang", "de") == expected("de"), "--lang before both"
    assert json.loads(run(capsys, "moves", START, "--dice", "52", "--json")[1])["count"] == 8


def test_json_stays_the_same_in_every_language(capsys: pytest.CaptureFixture[str], no_profile: Path) -> None:
    english = run(capsys, "met", "--length", "3", "--score", "0", "1", "--json", "--lang", "en")[1]
    assert run(capsys, "met", "--length", "3", "--score", "0", "1", "--json", "--lang", "ru")[1] == english


def test_play_in_german_from_piped_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, no_profile: Path
) -> None:
    """A few typed commands (English, as typed in every language) and the game's lines in German."""
    monkeypatch.setattr("sys.stdin", io.StringIO("roll\nfoo\n1\n"))
    code, out, _ = run(capsys, "play", "--seed", "ab", "--level", "easy", "--lang", "de")
    de = functools.partial(i18n.t, lang="de")
    assert code == 0
    assert de("cli.play.ev.opening_you", you=4, bot="pulvezar", them=1) in out.splitlines()
    assert de("cli.play.refused", reason=de("cli.play.unknown", command="'foo'")) in out
    bot_rolls = de("cli.play.ev.roll_play_bot", bot="pulvezar", dice="5-2", play="{play}").split("{play}")[0]
    assert bot_rolls in out, "pulvezar würfelt 5-2 und zieht ..."
    assert de("cli.play.board.you", pips=167, off=0) in out and "Spiel 1, Match auf 1" in out
    assert out.rstrip().endswith(de("cli.play.unfinished"))
    assert "Opening roll" not in out and "pips" not in out and "refused" not in out


def test_match_analyse_explains_in_the_language_unless_json(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, no_profile: Path
) -> None:
    """The explanations (``AnalysisSettings.lang``) follow --lang for the table; --json is English."""
    from pulvezar.analysis import match as analysis

    langs: list[str] = []
    real = analysis.analyse_match

    def recording(record: Any, settings: Any, **kw: Any) -> Any:
        langs.append(settings.lang)
        return real(record, settings, **kw)

    monkeypatch.setattr(analysis, "analyse_match", recording)
    mat = str(Path(__file__).parents[1] / "formats" / "data" / "gnubg_roll_then_resign_1p.mat")
    code, out, _ = run(capsys, "match", "analyse", mat, "--level", "0ply", "--quiet", "--lang", "tr")
    assert code == 0 and out.startswith(i18n.t("cli.match.table_head", "tr", level="0ply", ply=0, cube_ply=0,
                                                luck_ply=0))  # fmt: skip
    english = run(capsys, "match", "analyse", mat, "--level", "0ply", "--quiet", "--json")[1]
    assert (
        run(capsys, "match", "analyse", mat, "--level", "0ply", "--quiet", "--json", "--lang", "ru")[1]
        == english
    )
    assert langs == ["tr", "en", "en"]
