"""Which engine made a result: pulvezar's version and the net (name and SHA-256), so that a result can
be reproduced later; and the model files this pulvezar can load.

:func:`engine_info` is the one answer for every result that carries an evaluation (analyses, books,
rollouts, puzzles, the services' replies).  Its JSON (:meth:`EngineInfo.to_json`) is
``{"name": "pulvezar", "version", "model": "pulvezar-v4", "model_sha256", "evaluator", ...}``;
:meth:`EngineInfo.from_json` also reads the shapes stored before it (an opening book's
``"model": "pulvezar-v3.pt"``, an analysis's ``"model": <sha256>``).

>>> e = EngineInfo.from_json({"name": "pulvezar", "version": "0.1.0", "model": "x.pt", "model_sha256": "ab"})
>>> e.model, e.model_sha256
('x', 'ab')
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pulvezar.eval.evaluator import MODELS, Evaluator, ModelInfo, default_evaluator, default_model_path

__all__ = ["EngineInfo", "ModelEntry", "engine_info", "file_sha256", "list_models", "model_name_of"]

_SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class EngineInfo:
    """What made a result: ``model`` the net's name (``pulvezar-v4``; None: unknown), ``model_sha256``
    its file's SHA-256 (None: unknown), ``remote`` True when an Evaluator service evaluated (then the
    model is what the service reported)."""

    version: str
    model: str | None
    model_sha256: str | None
    encoding_version: int | None = None
    evaluator: str = "NetEvaluator"
    remote: bool = False
    name: str = "pulvezar"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "version": self.version,
            "model": self.model,
            "model_sha256": self.model_sha256,
            "evaluator": self.evaluator,
        }
        if self.encoding_version is not None:
            out["encoding_version"] = self.encoding_version
        if self.remote:
            out["remote"] = True
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> EngineInfo:
        """The engine of a stored result, any shape it was written in (missing fields: unknown)."""
        data = data or {}
        model = data.get("model")
        sha = data.get("model_sha256")
        if sha is None and isinstance(model, str) and _SHA256.match(model):  # an analysis before names
            sha, model = model, None
        if isinstance(sha, str) and set(sha) == {"0"}:  # a book's "no checksum"
            sha = None
        if isinstance(model, str):
            model = model.removesuffix(".pt") or None
        if model is None and isinstance(sha, str):
            model = model_name_of(sha)
        enc = data.get("encoding_version")
        return cls(
            version=str(data.get("version") or "unknown"),
            model=model if isinstance(model, str) else None,
            model_sha256=sha if isinstance(sha, str) else None,
            encoding_version=enc if isinstance(enc, int) else None,
            evaluator=str(data.get("evaluator") or "NetEvaluator"),
            remote=bool(data.get("remote", False)),
            name=str(data.get("name") or "pulvezar"),
        )

    def book_json(self) -> dict[str, Any]:
        """The engine as an opening book has always stored it (its schema's required keys;
        ``"model"`` the file name, ``"model_sha256"`` zeros where unknown)."""
        out: dict[str, Any] = {
            "name": self.name,
            "version": self.version,
            "model": f"{self.model}.pt" if self.model else self.evaluator,
            "model_sha256": self.model_sha256 or "0" * 64,
        }
        if self.encoding_version is not None:
            out["encoding_version"] = self.encoding_version
        return out


def engine_info(evaluator: Evaluator | None = None, model_name: str | None = None) -> EngineInfo:
    """The engine of ``evaluator`` (default: :func:`~pulvezar.eval.evaluator.default_evaluator`): a
    ``NetEvaluator``'s model file, or what a remote evaluator's service reported (its ``model``
    SHA-256 and ``model_name``); ``model_name`` overrides the name."""
    from pulvezar._version import __version__

    ev = evaluator if evaluator is not None else default_evaluator()
    info = getattr(ev, "info", None)
    kind = type(ev).__name__
    if isinstance(info, ModelInfo):
        name = model_name or info.name or model_name_of(info.sha256)
        return EngineInfo(__version__, name, info.sha256, int(info.encoding_version), kind)
    sha = getattr(ev, "model", None)
    if isinstance(sha, str):  # a client of the Evaluator service (services.common.remote_evaluator)
        reported = getattr(ev, "model_name", None)
        name = model_name or (reported if isinstance(reported, str) and reported else None)
        return EngineInfo(__version__, name or model_name_of(sha), sha or None, None, kind, remote=True)
    return EngineInfo(__version__, model_name, None, None, kind)


@dataclass(frozen=True)
class ModelEntry:
    """A model file this pulvezar can load: ``nets`` (contact, crashed, race), ``variants`` the rule
    sets with nets of their own, ``default`` whether ``default_evaluator()`` loads it."""

    name: str
    sha256: str
    encoding_version: int | None
    nets: tuple[str, ...]
    variants: tuple[str, ...]
    default: bool
    path: Path

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "sha256": self.sha256,
            "encoding_version": self.encoding_version,
            "nets": list(self.nets),
            "variants": list(self.variants),
            "default": self.default,
        }


_HASHES: dict[tuple[str, int, int], str] = {}


def file_sha256(path: Path) -> str:
    """A file's SHA-256, computed once per (path, size, mtime) in this process."""
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    digest = _HASHES.get(key)
    if digest is None:
        digest = _HASHES[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest


_LISTED: dict[tuple[Any, ...], tuple[ModelEntry, ...]] = {}


def list_models() -> tuple[ModelEntry, ...]:
    """The model files in :data:`~pulvezar.eval.evaluator.MODELS` (and ``PULVEZAR_MODEL``'s when it is
    elsewhere), by name; each with its computed SHA-256 and what its metadata says it holds.  Read once
    per state of the files (their paths, sizes and times) in this process: routes name nets by it."""
    default = default_model_path().resolve()
    paths = sorted(MODELS.glob("*.pt"))
    if default.exists() and default not in {p.resolve() for p in paths}:
        paths.append(default)
    key = (default, *((str(p), st.st_size, st.st_mtime_ns) for p, st in ((p, p.stat()) for p in paths)))
    listed = _LISTED.get(key)
    if listed is None:
        _LISTED.clear()
        listed = _LISTED[key] = _read_models(paths, default)
    return listed


def _read_models(paths: list[Path], default: Path) -> tuple[ModelEntry, ...]:
    out = []
    for path in paths:
        meta_path = path.with_suffix(".json")
        meta: dict[str, Any] = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        enc = meta.get("encoding_version")
        out.append(
            ModelEntry(
                name=path.stem,
                sha256=file_sha256(path),
                encoding_version=enc if isinstance(enc, int) else None,
                nets=tuple(meta.get("nets", ("contact", "race"))),
                variants=tuple(meta.get("variants", ())),
                default=path.resolve() == default,
                path=path,
            )
        )
    return tuple(out)


def model_name_of(sha256: str) -> str | None:
    """The name of the listed model file with this SHA-256 (:func:`list_models`), else None."""
    if not sha256:
        return None
    return next((m.name for m in list_models() if m.sha256 == sha256), None)
