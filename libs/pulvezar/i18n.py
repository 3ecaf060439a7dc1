"""The library's messages: one catalog per language, ``pulvezar/messages/<code>.json``.

A catalog is a flat JSON object of keys named by module and purpose (``"explain.hits"``) with ``{name}``
placeholders, the web client's shape (``services/gateway/web/messages``): a message is a string, or an
object of plural forms chosen by the value ``n`` (exact forms first, ``"=0"``, then the language's CLDR
category ``"one"``, ``"few"``, ``"many"``, ``"other"``). A placeholder may name a formatter, ``{n:abl}``
(see :data:`FORMATTERS`). ``messages/languages.json`` lists the languages offered, ``{code: own name}``; a
language is listed once its catalog holds every English key (``tests/test_i18n.py``). The move
explanations (:mod:`pulvezar.analysis.explain`) and the CLI's messages come from these catalogs.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

MESSAGES = Path(__file__).with_name("messages")
PLACEHOLDER = re.compile(r"\{(\w+)(?::(\w+))?\}")


class UnknownLanguage(ValueError):
    """A language no catalog offers."""


@cache
def languages() -> dict[str, str]:
    """The languages offered, ``{code: its own name}``, English first."""
    data: dict[str, str] = json.loads((MESSAGES / "languages.json").read_text(encoding="utf-8"))
    return data


LANGUAGES: tuple[str, ...] = tuple(languages())


@cache
def catalog(lang: str) -> dict[str, Any]:
    """The catalog of ``lang`` (:class:`UnknownLanguage` when it is not offered)."""
    if lang not in languages():
        raise UnknownLanguage(f"unknown language {lang!r}; languages: {', '.join(languages())}")
    data: dict[str, Any] = json.loads((MESSAGES / f"{lang}.json").read_text(encoding="utf-8"))
    return data


def plural_category(lang: str, n: int) -> str:
    """The CLDR plural category of the integer ``n`` in ``lang`` (the nine languages' rules)."""
    n = abs(n)
    if lang in ("fr", "pt"):
        return "one" if n in (0, 1) else "other"
    if lang == "ru":
        if n % 10 == 1 and n % 100 != 11:
            return "one"
        return "few" if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 else "many"
    return "one" if n == 1 else "other"


# Turkish case suffixes after a number, as it is read: {n:abl} "12'den" (from), {n:dat} "12'ye" (to)
_TR_LAST_WORD = {0: "sıfır", 1: "bir", 2: "iki", 3: "üç", 4: "dört", 5: "beş", 6: "altı", 7: "yedi",
                 8: "sekiz", 9: "dokuz", 10: "on", 20: "yirmi", 30: "otuz", 40: "kırk", 50: "elli",
                 60: "altmış", 70: "yetmiş", 80: "seksen", 90: "doksan", 100: "yüz"}  # fmt: skip
_BACK_VOWELS = "aıou"
_VOWELS = "aıoueiöü"
_VOICELESS = "fstkçşhp"


def _tr_word(n: int) -> str:
    """The last spoken word of ``n >= 0``, which the suffix harmonises with."""
    n = abs(n)
    if n == 0:
        return "sıfır"
    if n % 10:
        return _TR_LAST_WORD[n % 10]
    if n % 100:
        return _TR_LAST_WORD[n % 100]
    if n % 1000:
        return "yüz"
    return "bin" if n % 1_000_000 else "milyon"


def tr_suffix(n: int, case: Literal["dat", "abl"]) -> str:
    """``n`` with the Turkish dative (``'e``, ``'ye``...) or ablative (``'den``, ``'tan``...).

    >>> tr_suffix(17, "abl"), tr_suffix(3, "dat"), tr_suffix(6, "dat"), tr_suffix(40, "abl")
    ("17'den", "3'e", "6'ya", "40'tan")
    """
    word = _tr_word(n)
    vowel = next(c for c in reversed(word) if c in _VOWELS)
    a = "a" if vowel in _BACK_VOWELS else "e"
    last = word[-1]
    if case == "dat":
        return f"{n}'{'y' if last in _VOWELS else ''}{a}"
    return f"{n}'{'t' if last in _VOICELESS else 'd'}{a}n"


FORMATTERS: dict[str, Callable[[Any], str]] = {
    "abl": lambda v: tr_suffix(int(v), "abl"),
    "dat": lambda v: tr_suffix(int(v), "dat"),
}
"""Formatters a placeholder may name (``{n:abl}``): grammar plural forms cannot spell out."""


def _pick(forms: Mapping[str, str], lang: str, n: Any) -> str:
    if n is None:
        return forms["other"]
    exact = forms.get(f"={int(n)}")
    return exact if exact is not None else forms.get(plural_category(lang, int(n)), forms["other"])


def t(key: str, lang: str = "en", **values: Any) -> str:
    """The message ``key`` in ``lang`` (English where its catalog lacks it) with its placeholders filled.

    >>> t("explain.hits", "en", n=2)
    'hits 2 blots'
    """
    message = catalog(lang).get(key)
    if message is None:
        message = catalog("en")[key]  # KeyError: a key no catalog has is a bug
    text = _pick(message, lang, values.get("n")) if isinstance(message, dict) else message

    def fill(m: re.Match[str]) -> str:
        name, fmt = m.group(1), m.group(2)
        if name not in values:
            return m.group(0)
        return FORMATTERS[fmt](values[name]) if fmt else str(values[name])

    return PLACEHOLDER.sub(fill, text)


@dataclass(frozen=True, slots=True)
class Message:
    """A message to be said in the reader's language: its key and values; a value may be a Message
    itself, said in the same language. ``str()`` is the English.

    >>> m = Message("why.blocked", {"point": 5, "n": 2})
    >>> str(m)
    'the 5-point is blocked: the opponent has 2 checkers there'
    >>> m.text("de")
    'Punkt 5 ist blockiert: der Gegner hat dort 2 Steine'
    """

    key: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def text(self, lang: str = "en") -> str:
        values = {k: v.text(lang) if isinstance(v, Message) else v for k, v in self.values.items()}
        return t(self.key, lang, **values)

    def __str__(self) -> str:
        return self.text("en")


def number(x: float, lang: str, spec: str = "") -> str:
    """``x`` formatted by ``spec`` (``"+.3f"``) with the language's decimal sign (``format.decimal``)."""
    return format(x, spec).replace(".", t("format.decimal", lang))


def lang_of(value: str | None = None) -> str:
    """A language offered from ``value`` or else the environment (``LC_ALL``, ``LC_MESSAGES``, ``LANG``):
    ``"de_DE.UTF-8"`` gives ``"de"``; English where it names no language offered."""
    if not value:  # the first variable set decides, as for POSIX programs (C or POSIX: English)
        value = next((v for v in (os.environ.get(n) for n in ("LC_ALL", "LC_MESSAGES", "LANG")) if v), "")
    code = value.split("_")[0].split(".")[0].split("-")[0].lower()
    return code if code in languages() else "en"
