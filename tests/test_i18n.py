"""The library's message catalogs (``libs/pulvezar/messages/<lang>.json``, :mod:`pulvezar.i18n`): a
language is offered once its catalog is complete (all nine once all nine exist); every language offered has
every English key with its placeholders and plural forms; every key the library names exists; the plural
rules and the Turkish formatters."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pulvezar import i18n
from pulvezar.analysis.explain import WEIGHTS
from tests.catalog_checks import check_catalog

LIB = Path(i18n.__file__).parent


#: the seed's nine languages: once each has its catalog, each is offered
NINE = {"tr", "en", "fr", "de", "es", "pt", "it", "el", "ru"}


def test_the_languages_offered_are_the_catalogs() -> None:
    # a catalog is offered (listed in languages.json) once it is complete; the test below holds it to it
    on_disk = {p.stem for p in i18n.MESSAGES.glob("*.json") if p.name != "languages.json"}
    assert set(i18n.languages()) <= on_disk <= NINE
    if on_disk == NINE:
        assert set(i18n.languages()) == NINE, "all nine catalogs exist: every one is offered"
    assert next(iter(i18n.languages())) == "en"


@pytest.mark.parametrize("code", list(i18n.languages()))
def test_every_language_has_every_key_with_the_same_placeholders(code: str) -> None:
    english, other = i18n.catalog("en"), json.loads((i18n.MESSAGES / f"{code}.json").read_text("utf-8"))
    check_catalog(code, english, other, i18n.PLACEHOLDER, set(i18n.FORMATTERS), "i18n.py")


#: t("key" / i18n.t("key" / Message("key": a literal key the library names
T_CALL = re.compile(r"""\b(?:t|Message)\(\s*["']([a-z_]+\.[\w.]+)["']""")


def test_every_key_the_library_names_exists() -> None:
    keys = set(i18n.catalog("en"))
    named = {k for p in LIB.rglob("*.py") for k in T_CALL.findall(p.read_text(encoding="utf-8"))}
    assert named, "the check finds the library's keys"
    assert sorted(named - keys) == []
    assert {f"explain.{code}" for code in WEIGHTS} <= keys, "every reason code has its phrase"
    assert {"refusal.game_over", "why.blocked", "play.illegal"} <= named, "Message keys are found too"
    # the keys a Message names by an f-string: every waiting state and Tavla option
    assert {f"wait.answer_{a}" for a in ("double", "beaver", "raccoon", "resignation")} <= keys
    assert {"why.tavla.hit_and_stop", "why.tavla.must_bear_off"} <= keys


def test_plural_forms_and_placeholders() -> None:
    assert i18n.t("explain.hits", "en", n=1) == "hits a blot"
    assert i18n.t("explain.hits", "en", n=3) == "hits 3 blots"
    assert i18n.t("explain.fewer_shots", "fr", n=0, o=7).startswith("ne laisse à l'adversaire aucun jet")
    assert i18n.t("explain.gammon_risk", "tr", n=5, o=12) == "mars olma riskini %12'den %5'e indirir"
    assert i18n.t("explain.makes_point", "es") == "hace el punto {point}", "a value not given stays"
    with pytest.raises(i18n.UnknownLanguage):
        i18n.t("explain.conj", "xx")


@pytest.mark.parametrize(
    ("lang", "n", "category"),
    [("en", 1, "one"), ("en", 0, "other"), ("fr", 0, "one"), ("fr", 2, "other"), ("pt", 1, "one"),
     ("ru", 21, "one"), ("ru", 3, "few"), ("ru", 12, "many"), ("ru", 5, "many"), ("tr", 2, "other")],
)  # fmt: skip
def test_plural_categories(lang: str, n: int, category: str) -> None:
    assert i18n.plural_category(lang, n) == category


def test_the_language_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    assert i18n.lang_of() == "en"
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    assert i18n.lang_of() == "de"
    assert i18n.lang_of("pt-BR") == "pt"
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    assert i18n.lang_of() == "en", "LC_ALL overrides LANG, and C is no language offered"


def test_the_cli_prompts_in_the_language_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from pulvezar.cli.play import add_parser, prompt_lines

    st = {"status": "playing", "actions": ["roll", "double"], "phase": "rolling", "to_act": 0}
    assert prompt_lines(st)[0] == "Your turn: roll"
    assert prompt_lines(st, "fr") == ["À vous : roll", "possible : roll, double, board, help, quit"]
    assert prompt_lines(st, "de")[0] == "Du bist dran: roll"
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    assert parser.parse_args(["play"]).lang == "es", "the default language comes from LANG"
    assert parser.parse_args(["play", "--lang", "ru"]).lang == "ru"
