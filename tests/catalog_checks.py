"""The checks every message catalog is held to, the library's (libs/pulvezar/messages) and the web UI's
(services/gateway/web/messages): English's keys, no new placeholder, plural forms, no empty text, only
the formatters the catalog's runtime has."""

from __future__ import annotations

import re
from typing import Any

PLURAL_FORMS = {"zero", "one", "two", "few", "many", "other"}


def forms(message: Any) -> list[str]:
    """A message's texts: the string, or each plural form's."""
    return list(message.values()) if isinstance(message, dict) else [message]


def placeholders(message: Any, placeholder: re.Pattern[str]) -> set[str]:
    """The names of a message's ``{name}`` / ``{name:formatter}`` placeholders."""
    return {name for text in forms(message) for name, _ in placeholder.findall(text)}


def check_catalog(
    code: str,
    english: dict[str, Any],
    other: dict[str, Any],
    placeholder: re.Pattern[str],
    formatters: set[str],
    runtime: str,
) -> None:
    """Asserts ``other`` (``code``'s catalog) holds English's keys and no more, each with no placeholder
    English lacks, plural messages with an ``other`` form, no empty text and only ``formatters``
    (``runtime``, the module that has them, names them in the message)."""
    assert sorted(set(english) - set(other)) == [], f"{code}.json lacks these keys"
    assert sorted(set(other) - set(english)) == [], f"{code}.json has keys English lacks"
    for key, message in other.items():
        new = placeholders(message, placeholder) - placeholders(english[key], placeholder)
        assert not new, f"{code}.json {key}: a new placeholder"
        if isinstance(message, dict):
            assert "other" in message, f"{code}.json {key}: a plural message needs its 'other' form"
            assert all(f in PLURAL_FORMS or re.fullmatch(r"=\d+", f) for f in message), f"{code}.json {key}"
        for text in forms(message):
            assert isinstance(text, str) and text.strip(), f"{code}.json {key}: empty"
            named = {f for _, f in placeholder.findall(text) if f}
            assert named <= formatters, f"{code}.json {key}: formatters {runtime} lacks"
