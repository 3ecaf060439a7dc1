"""Which engine made a result (pulvezar.eval.provenance) and `pulvezar --version`."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

import pulvezar
from pulvezar.analysis.matchanalysis.results import engine_info as analysis_engine
from pulvezar.book.generate import engine_info as book_engine
from pulvezar.book.generate import same_engine
from pulvezar.cli import main
from pulvezar.eval.evaluator import DEFAULT_MODEL, MODELS, NetEvaluator, default_evaluator
from pulvezar.eval.provenance import EngineInfo, engine_info, list_models, model_name_of


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_list_models_names_every_model_file_with_its_computed_hash() -> None:
    models = list_models()
    assert [m.name for m in models] == sorted(p.stem for p in MODELS.glob("*.pt"))
    for m in models:
        assert m.sha256 == _sha(m.path) == json.loads(m.path.with_suffix(".json").read_text())["sha256"]
    (default,) = [m for m in models if m.default]
    assert default.path == DEFAULT_MODEL and default.name == DEFAULT_MODEL.stem
    v4 = {m.name: m for m in models}[DEFAULT_MODEL.stem]
    meta = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    assert list(v4.nets) == meta["nets"] and list(v4.variants) == meta.get("variants", [])
    assert v4.to_json()["default"] is True and model_name_of(v4.sha256) == v4.name
    assert model_name_of("0" * 64) is None


def test_list_models_follows_pulvezar_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "candidate.pt"
    shutil.copy(MODELS / "pulvezar-v1.pt", other)
    monkeypatch.setenv("PULVEZAR_MODEL", str(other))
    models = {m.name: m for m in list_models()}
    assert models["candidate"].default and not models[DEFAULT_MODEL.stem].default
    assert models["candidate"].sha256 == _sha(other)


def test_engine_info_of_a_loaded_net_names_it() -> None:
    e = engine_info(default_evaluator())
    assert e == engine_info()
    assert (e.model, e.model_sha256, e.version) == (
        DEFAULT_MODEL.stem,
        _sha(DEFAULT_MODEL),
        pulvezar.__version__,
    )
    v1 = engine_info(NetEvaluator.load(MODELS / "pulvezar-v1.pt"))
    assert (v1.model, v1.model_sha256, v1.encoding_version) == (
        "pulvezar-v1",
        _sha(MODELS / "pulvezar-v1.pt"),
        2,
    )
    assert EngineInfo.from_json(e.to_json()) == e and EngineInfo.from_json(v1.to_json()) == v1


def test_engine_info_of_a_remote_evaluator_is_what_the_service_reported() -> None:
    class Remote:  # the shape of services.common.remote_evaluator.GrpcEvaluator
        model = _sha(MODELS / "pulvezar-v3.pt")
        model_name = ""

        def info(self) -> None: ...

    e = engine_info(Remote())  # type: ignore[arg-type]
    assert e.remote and e.model == "pulvezar-v3" and e.model_sha256 == Remote.model
    Remote.model_name = "reported"
    assert engine_info(Remote()).model == "reported"  # type: ignore[arg-type]


def test_an_evaluator_without_a_model_file_says_unknown() -> None:
    from pulvezar.eval.pubeval import PubEval

    e = engine_info(PubEval())
    assert e.model is None and e.model_sha256 is None and e.evaluator == "PubEval"
    assert book_engine(PubEval())["model_sha256"] == "0" * 64


def test_old_shapes_still_read() -> None:
    sha = _sha(MODELS / "pulvezar-v3.pt")
    book = {"name": "pulvezar", "version": "0.1.0", "model": "pulvezar-v3.pt", "model_sha256": sha}
    old_analysis = {"name": "pulvezar", "version": "0.1.0", "evaluator": "NetEvaluator", "model": sha}
    for old in (book, old_analysis):
        e = EngineInfo.from_json(old)
        assert (e.model, e.model_sha256) == ("pulvezar-v3", sha)
    unknown = EngineInfo.from_json(None)
    assert unknown.model is None and unknown.model_sha256 is None and unknown.version == "unknown"


def test_the_book_and_the_analysis_take_their_engine_from_the_one_function() -> None:
    e = engine_info()
    book = book_engine(default_evaluator())
    assert book["model"] == f"{e.model}.pt" and book["model_sha256"] == e.model_sha256  # the shape books had
    assert EngineInfo.from_json(book) == EngineInfo.from_json(e.to_json())
    assert analysis_engine() == e.to_json()
    assert same_engine({**book, "model": "renamed.pt"}, book)
    assert not same_engine({**book, "model_sha256": "1" * 64}, book)


def test_version_names_the_default_net(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out.strip()
    assert (
        out == f"pulvezar {pulvezar.__version__}, model {DEFAULT_MODEL.stem} ({_sha(DEFAULT_MODEL)[:16]}...)"
    )
