"""The Turkish roll names of Tavla (setting "roll names in Turkish", settings.js rollName: the catalogs'
settings.roll_<high><low>, Turkish in every language) against the seed's table, all 21 rolls.

The seed (../shared/seeds): 000 §1.5 "Traditionelle türkische Würfelnamen" names the numerals yek 1, dü 2,
se 3, cihar 4, penc 5, şeş 6 (003 "Türkische Wurfnamen": penç), the doubles Hep Yek, Dubara and Düşeş, says
5-4 is called with the Turkish numbers, "beş dört", and (000 §1.2) "şeşbeş" for 6-5; 003 says the other rolls
combine the numerals, high first, e.g. "şeş yek" for 6-1. Where the seed is silent (3-3, 4-4, 5-5) the names
are the usual ones of Turkish tables (dü se, dört cihar, dü beş): a Turkish player should confirm them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

MESSAGES = Path(__file__).resolve().parents[2] / "services" / "gateway" / "web" / "messages"
LANGUAGES = ("tr", "en", "fr", "de", "es", "pt", "it", "el", "ru")
NUMERALS = {1: "yek", 2: "dü", 3: "se", 4: "cihar", 5: "penç", 6: "şeş"}  # the seed's numerals
NAMED = {
    (1, 1): "Hep yek", (2, 2): "Dubara", (6, 6): "Düşeş",  # named in the seed
    (5, 4): "Beş dört", (6, 5): "Şeş beş",  # the seed: Turkish numbers; şeşbeş
    (3, 3): "Dü se", (4, 4): "Dört cihar", (5, 5): "Dü beş",  # seed silent: the usual names
}  # fmt: skip


def table() -> dict[str, str]:
    """Each of the 21 rolls as its catalog key and name: a named roll, or the numerals high first."""
    out = {}
    for hi in range(1, 7):
        for lo in range(1, hi + 1):
            name = NAMED.get((hi, lo)) or f"{NUMERALS[hi]} {NUMERALS[lo]}".capitalize()
            out[f"settings.roll_{hi}{lo}"] = name
    return out


def test_the_table_has_every_roll() -> None:
    rolls = table()
    assert (
        len(rolls) == 21
        and rolls["settings.roll_61"] == "Şeş yek"
        and rolls["settings.roll_43"] == "Cihar se"
    )


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_catalog_names_the_rolls_as_the_seed(code: str) -> None:
    catalog = json.loads((MESSAGES / f"{code}.json").read_text(encoding="utf-8"))
    names = {k: v for k, v in catalog.items() if k.startswith("settings.roll_") and k[-2:].isdigit()}
    assert names == table()
