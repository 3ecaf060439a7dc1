"""The web client's message catalogs (``services/gateway/web/messages/<lang>.json``), read from the files (no
browser): every language has every key, with the English message's placeholders and plural forms; no
catalog holds a key no module names; every key a module names exists; no module holds messages of its own
(the old shape: ``{en: {...}, de: {...}}`` tables, ``addMessages``, ``lang() === "de"`` branches,
letters of the other languages outside the catalogs); a catalog is offered in languages.json once complete.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.catalog_checks import check_catalog

WEB = Path(__file__).resolve().parents[2] / "services" / "gateway" / "web"
MESSAGES = WEB / "messages"
PLACEHOLDER = re.compile(r"\{(\w+)(?::(\w+))?\}")
#: i18n.js's formatters a placeholder may name ({n:abl})
FORMATTERS = {"abl", "dat"}


def catalog(code: str) -> dict[str, Any]:
    return json.loads((MESSAGES / f"{code}.json").read_text(encoding="utf-8"))


def languages() -> list[str]:
    return list(json.loads((MESSAGES / "languages.json").read_text(encoding="utf-8")))


def sources() -> dict[str, str]:
    """The client's modules and index.html, by their path under web/."""
    files = [*WEB.rglob("*.js"), WEB / "index.html"]
    return {str(p.relative_to(WEB)): p.read_text(encoding="utf-8") for p in files}


def named_in_sources(namespaces: set[str]) -> tuple[set[str], set[str]]:
    """The keys the sources name ("play.roll", data-i18n="app.save") and the prefixes of keys they build
    (`play.mark_${m}`, or a literal "play." joined with a value)."""
    ns = "|".join(sorted(namespaces))
    literal = re.compile(rf"""["'`]((?:{ns})\.[\w. ]*?)(["'`]|\$\{{)""")
    exact: set[str] = set()
    prefixes: set[str] = set()
    for text in sources().values():
        for name, end in literal.findall(text):
            if end == "${" or name.endswith((".", "_")):
                prefixes.add(name)
            else:
                exact.add(name)
    return exact, prefixes


#: the seed's nine languages: once each has its catalog, each is offered
NINE = {"tr", "en", "fr", "de", "es", "pt", "it", "el", "ru"}


def test_the_languages_offered_are_the_catalogs() -> None:
    # a catalog is offered (listed in languages.json) once it is complete; then the tests below hold it to it
    on_disk = {p.stem for p in MESSAGES.glob("*.json") if p.name != "languages.json"}
    assert set(languages()) <= on_disk, "a language offered needs its catalog"
    assert on_disk <= NINE, "a catalog of a language the seed does not name"
    if on_disk == NINE:
        assert set(languages()) == NINE, "all nine catalogs exist: every one is offered"
    assert languages()[0] == "en", "English comes first: the fallback and the first visit's default"


@pytest.mark.parametrize("code", languages())
def test_every_language_has_every_key_with_the_same_placeholders(code: str) -> None:
    english, other = catalog("en"), catalog(code)
    check_catalog(code, english, other, PLACEHOLDER, FORMATTERS, "i18n.js")


def test_keys_are_named_by_view_and_purpose() -> None:
    views = {p.stem for p in (WEB / "views").glob("*.js")}
    modules = {"app", "board", "players", "play_options", "links", "gameend", "settings", "trainer"}
    for key in catalog("en"):
        assert re.fullmatch(r"[a-z_]+\.[\w. ]+", key), key
        assert key.split(".")[0] in views | modules, f"{key}: its first part names a view or a module"


#: t("key"): the first argument of a call of t(), a literal
T_CALL = re.compile(r"""\bt\(\s*["']([^"']*)["']""")


def test_every_key_is_used_and_every_used_key_exists() -> None:
    keys = set(catalog("en"))
    exact, prefixes = named_in_sources({k.split(".")[0] for k in keys})
    assert sorted(exact - keys) == [], "the sources name keys no catalog has"
    called = {key for text in sources().values() for key in T_CALL.findall(text)}
    assert sorted(called - keys) == [], "t() is called with keys no catalog has"
    unused = sorted(k for k in keys if k not in exact and not k.startswith(tuple(prefixes)))
    assert unused == [], "keys no module names (remove them from every catalog)"


def test_the_check_of_used_keys_finds_keys() -> None:
    # the check above means something: it finds a plain key, a data-i18n attribute and a built prefix
    exact, prefixes = named_in_sources({"app", "play", "analysis"})
    assert {"app.save", "play.would_refuse"} <= exact
    assert {"app.nav_", "analysis.why."} <= prefixes


OLD_SHAPE = {
    "a table of messages per language": re.compile(r"""\b(?:en|de|tr|fr|es|pt|el|ru)\s*:\s*[{"'`]"""),
    "addMessages": re.compile(r"\baddMessages\b"),
    "a branch on the language": re.compile(
        r"""\blang\(\)\s*[!=]==?\s*["'`]|["'`]\w\w["'`]\s*[!=]==?\s*lang\(\)"""
    ),
}
#: letters of the other eight languages (German, Turkish, French, Spanish, Portuguese, Italian; Greek and
#: Cyrillic script): in a module they mean a message outside the catalogs (i18n.js holds the Turkish number
#: words of its case-suffix formatter)
FOREIGN_LETTERS = re.compile(r"[äöüÄÖÜßçğıİşŞĞÇéèêëàâîïôûùœÉÈÀñÑ¿¡ãõáíóúÁÍÓÚìò\u0370-\u03ff\u0400-\u04ff]")


@pytest.mark.parametrize("name", sorted(n for n in sources() if n.endswith(".js")))
def test_no_module_holds_messages_of_its_own(name: str) -> None:
    text = sources()[name]
    for what, pattern in OLD_SHAPE.items():
        assert not pattern.search(text), f"{name}: {what} ({pattern.search(text)})"
    if name != "i18n.js":
        found = FOREIGN_LETTERS.search(text)
        where = text[found.start() - 40 : found.end() + 20] if found else ""
        assert not found, f"{name}: text in another language outside the catalogs: …{where}…"


def test_the_old_shape_is_recognised() -> None:
    # the patterns above find what the views held before the catalogs
    old = 'addMessages({\n  en: { pl_roll: "Roll" },\n  de: { pl_roll: "Würfeln" } });\n'
    old += 'if (lang() === "de") x();'
    assert all(p.search(old) for p in OLD_SHAPE.values())
    assert FOREIGN_LETTERS.search(old)
    assert all(FOREIGN_LETTERS.search(w) for w in ("Réessayer", "Año", "τάβλι", "нарды"))
    assert OLD_SHAPE["a table of messages per language"].search('{ fr: "Lancer" }')


#: the forms of the register a catalog does not use (issue 44): German and Turkish address the player as "du"
#: and "sen", as the German seed does and most of both catalogs did, never as "Sie" and "siz"
FORMAL = {
    "de": re.compile(r"\b(Sie|Ihr|Ihre|Ihren|Ihrem|Ihrer|Ihres|Ihnen)\b"),
    "tr": re.compile(r"\b([Ss]iz|[Ss]izin|[Ss]izde|\w+(iniz|ınız|unuz|ünüz|sunuz|sünüz|siniz|sınız)"
                     r"|seçin|girin|tıklayın|bakın|atın|edin|oluşturun|deneyin|yapın|yükleyin|yazın)\b"),
}  # fmt: skip


@pytest.mark.parametrize("code", sorted(FORMAL))
def test_one_register_addresses_the_player(code: str) -> None:
    texts = {k: v for k, v in catalog(code).items() if isinstance(v, str)}
    formal = {k: v for k, v in texts.items() if FORMAL[code].search(v)}
    assert not formal, f"{code}: the formal address in {formal}"
    formal_example = {"de": "schauen Sie vorbei", "tr": "tekrar bakın ya da seçin, sıra sizde"}[code]
    assert FORMAL[code].search(formal_example)


@pytest.mark.parametrize("code", sorted(FORMAL))
def test_event_lines_fit_both_players(code: str) -> None:
    # "{who}" is "Du"/"Sen" or "pulvezar": a verb after it fits one of them only ("Du würfelt"), so a line
    # names who as a label ("{who}: Wurf 3-1.")
    lines = {k: v for k, v in catalog(code).items() if re.match(r"(play|gameend)\.ev_", k) and "{who}" in v}
    assert lines
    assert not {k: v for k, v in lines.items() if re.search(r"\{who\}(?![:,])", v)}
