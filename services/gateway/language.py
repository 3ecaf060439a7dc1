"""The language of an answer's words (a trainer's verdict, a rank's name): one of the library's catalogs'
languages (:data:`pulvezar.i18n.LANGUAGES`: en, de, tr, fr, es, pt, it, el, ru)."""

from __future__ import annotations

from fastapi import Request

from pulvezar.i18n import LANGUAGES

__all__ = ["LANGUAGES", "language"]


def language(request: Request) -> str:
    """The first language offered that ``Accept-Language`` names (by q), else en."""
    header = request.headers.get("accept-language", "")
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        ranked.append((-q, i, tag.strip().lower()[:2]))
    for _, _, lang in sorted(ranked):
        if lang in LANGUAGES:
            return lang
    return "en"
