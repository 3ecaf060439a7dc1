"""OGXM analysis-shape files (``pulvezar.formats.ogxm_analysis``) against the reference codec.

A 0-ply analysis of a real match is written as an analysis-shape file: the codec accepts it
(``v2_problem`` None), it joins the match :func:`write_ogxm` writes by digest, every decision
comes back with the values written, and laid onto the match's own plies the codec accepts its
placement.  Signatures are made here with ``cryptography``'s Ed25519 over the codec's own signing
payload (``ogxm.signature.analysis_payload``/``match_payload``) and checked for each case.
"""

from __future__ import annotations

import argparse
import base64
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from pulvezar.analysis.match import AnalysisSettings, MatchAnalysis, analyse_match
from pulvezar.cli import match as cli
from pulvezar.formats.files import read_match
from pulvezar.formats.ogxm import ply_refs, write_ogxm
from pulvezar.formats.ogxm_analysis import (
    OgxmKeyError,
    SignatureStatus,
    analysis_joins,
    parse_public_key,
    read_ogxm_analysis,
    verify_ogxm_signatures,
    write_ogxm_analysis,
)
from pulvezar.formats.record import MatchFileError, MatchRecord

ogxm = pytest.importorskip("ogxm")
ed25519 = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.ed25519")
serialization = pytest.importorskip("cryptography.hazmat.primitives.serialization")
from ogxm.signature import analysis_payload, match_payload  # type: ignore[import-untyped]  # noqa: E402

DATA = Path(__file__).parent / "data"
MATCH = DATA / "7point.mat"
EPS = 1.5e-6  # the codec stores equities to 1e-6


@pytest.fixture(scope="module")
def analysed() -> tuple[MatchRecord, MatchAnalysis]:
    record = read_match(MATCH)
    return record, analyse_match(record, AnalysisSettings.from_level("0ply"))


@pytest.fixture(scope="module")
def exported(analysed: tuple[MatchRecord, MatchAnalysis]) -> bytes:
    return write_ogxm_analysis(*analysed)


def _key() -> tuple[Any, bytes]:
    private = ed25519.Ed25519PrivateKey.generate()
    public = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return private, public


def _signed(data: bytes, private: Any, public: bytes | None, key_id: str = "test") -> bytes:
    """``data`` with its analysis block signed as the codec's rules say (spec 8.1.1)."""
    doc = ogxm.binary_to_json(data)
    sig = {"algorithm": "ed25519", "key_id": key_id}
    sig["signature"] = base64.b64encode(private.sign(analysis_payload(doc, 0))).decode()
    if public is not None:
        sig["public_key"] = base64.b64encode(public).decode()
    doc["analysis_info"]["signature"] = sig
    return bytes(ogxm.json_to_binary(doc))


# ---- export --------------------------------------------------------------------------------------


def test_the_codec_accepts_the_export_and_it_joins_the_match(
    analysed: tuple[MatchRecord, MatchAnalysis], exported: bytes
) -> None:
    record, _ = analysed
    doc = ogxm.binary_to_json(exported)
    assert ogxm.v2_problem(doc) is None
    assert ogxm.verify(exported) == (None, True)  # valid, and its CRC-32 checks
    assert "games" not in doc
    assert doc["analysis_info"]["currency"] == "cubeful"
    match = write_ogxm(record)
    assert ogxm.match_digest(exported) == ogxm.match_digest(match)
    assert analysis_joins(exported, match)
    other = read_match(DATA / "test.mat")
    assert not analysis_joins(exported, write_ogxm(other))


def test_every_decision_comes_back_with_the_values_written(
    analysed: tuple[MatchRecord, MatchAnalysis], exported: bytes
) -> None:
    record, analysis = analysed
    back = read_ogxm_analysis(exported)
    assert back.match_digest == ogxm.match_digest(write_ogxm(record)).hex()
    assert not back.signed
    by_action = back.by_action(record)
    checked = {"checker": 0, "double": 0, "take": 0, "luck": 0}
    for d in analysis.decisions:
        got = by_action[(d.game, d.index)]
        if d.kind == "checker":
            if d.luck is not None:
                assert got.luck == pytest.approx(d.luck.value, abs=EPS)
                checked["luck"] += 1
            if d.forced:
                assert got.checker is None
                continue
            assert got.checker is not None
            c = got.checker
            assert len(c.alternatives) == len(d.candidates)
            assert [a.equity for a in c.alternatives] == pytest.approx(
                sorted((x.equity for x in d.candidates), reverse=True), abs=EPS
            )
            assert [a.played for a in c.alternatives].count(True) == 1
            assert c.played_equity == pytest.approx(d.played_equity, abs=EPS)
            assert c.equity_loss == pytest.approx(d.loss, abs=2 * EPS)
        else:
            assert got.cube is not None and d.cube is not None
            assert (got.cube.no_double, got.cube.double_take, got.cube.double_pass) == pytest.approx(
                (d.cube.nd, d.cube.dt, d.cube.dp), abs=EPS
            )
            want = {"double": "double", "no double": "no_double", "take": "take", "pass": "pass"}[d.best]
            assert got.cube.correct_action in (want, "too_good" if d.kind == "double" else want)
        checked["checker" if d.kind == "checker" else d.kind] += 1
    assert checked["checker"] > 50 and checked["double"] > 0 and checked["take"] > 0 and checked["luck"] > 50


def _per_ply(entry: dict[str, Any], action_id: int) -> dict[str, Any]:
    """A decision entry as the full file's per-ply ``analysis`` object (the codec's projection)."""
    out: dict[str, Any] = dict(entry.get("checker", {}))
    if "roll" in entry:
        out["roll"] = entry["roll"]
    if "cube" in entry:
        if action_id <= 20:
            out["cube_decision"] = entry["cube"]
        else:
            out.update(entry["cube"])
    return out


def test_laid_on_the_match_the_codec_accepts_the_placement(
    analysed: tuple[MatchRecord, MatchAnalysis], exported: bytes
) -> None:
    record, _ = analysed
    match = ogxm.binary_to_json(write_ogxm(record))
    plies = [p for g in match["games"] for p in g["plies"]]
    decisions = ogxm.binary_to_json(exported)["analysis_info"]["decisions"]
    for entry in decisions:
        ply = plies[entry["ply_ref"]]
        if "checker" in entry:  # the played candidate is the ply's own move
            played = [a for a in entry["checker"]["alternatives"] if a.get("is_played")]
            assert [played[0]["move"]] == [ply["moves"]]
        ply["analysis"] = _per_ply(entry, ply["action_id"])
    info = {k: v for k, v in ogxm.binary_to_json(exported)["analysis_info"].items() if k != "decisions"}
    match["analysis_info"] = info
    for g in match["games"]:
        for p in g["plies"]:
            p.pop("ogid_before", None)
            p.pop("ogid_after", None)
    assert ogxm.v2_problem(match) is None
    assert ogxm.match_digest(ogxm.json_to_binary(match)) == ogxm.match_digest(exported)


def test_ply_refs_name_the_plies_the_writer_writes(analysed: tuple[MatchRecord, MatchAnalysis]) -> None:
    record, _ = analysed
    match = ogxm.binary_to_json(write_ogxm(record))
    plies = [p for g in match["games"] for p in g["plies"]]
    for (gi, ai), ref in ply_refs(record).items():
        kind = record.games[gi].actions[ai].kind
        aid = plies[ref]["action_id"]
        expect = {"roll": range(21), "play": range(21), "double": [21], "take": [22], "drop": [23]}
        assert aid in expect.get(kind, [27, 28]), (gi, ai, kind, aid)


def test_not_an_analysis_file(analysed: tuple[MatchRecord, MatchAnalysis]) -> None:
    with pytest.raises(MatchFileError, match="analysis-shape"):
        read_ogxm_analysis(write_ogxm(analysed[0]))
    with pytest.raises(MatchFileError, match="magic"):
        read_ogxm_analysis(b"PK\x03\x04 not ogxm")


# ---- signatures ----------------------------------------------------------------------------------


def test_signed_by_a_given_key(exported: bytes) -> None:
    private, public = _key()
    _, other = _key()
    signed = _signed(exported, private, public)
    assert ogxm.v2_problem(ogxm.binary_to_json(signed)) is None
    [check] = verify_ogxm_signatures(signed, [other, public])
    assert check.status is SignatureStatus.VALID and check.ok
    assert (check.scope, check.index, check.key, check.key_id) == ("analysis", 0, public.hex(), "test")
    assert read_ogxm_analysis(signed).signed


def test_signed_by_another_key(exported: bytes) -> None:
    private, public = _key()
    _, mine = _key()
    [check] = verify_ogxm_signatures(_signed(exported, private, public), [mine])
    assert check.status is SignatureStatus.OTHER_KEY and not check.ok
    assert check.key == public.hex()


def test_not_signed(exported: bytes) -> None:
    _, public = _key()
    [check] = verify_ogxm_signatures(exported, [public])
    assert (check.scope, check.status) == ("file", SignatureStatus.UNSIGNED)


def test_tampered_after_signing(exported: bytes) -> None:
    private, public = _key()
    doc = ogxm.binary_to_json(_signed(exported, private, public))
    entry = next(e for e in doc["analysis_info"]["decisions"] if "checker" in e)
    entry["checker"]["alternatives"][0]["equity"] += 0.25  # a better-looking best play, signature kept
    for a in entry["checker"]["alternatives"]:
        a.pop("diff", None)
    entry["checker"] = {"alternatives": entry["checker"]["alternatives"]}
    forged = bytes(ogxm.json_to_binary(doc))  # a well-formed file, its CRC-32 made again
    [check] = verify_ogxm_signatures(forged, [public])
    assert check.status is SignatureStatus.TAMPERED and check.key == public.hex()


def test_a_byte_changed_fails_the_checksum(exported: bytes) -> None:
    private, public = _key()
    signed = bytearray(_signed(exported, private, public))
    signed[len(signed) // 2] ^= 0x01
    [check] = verify_ogxm_signatures(bytes(signed), [public])
    assert (check.scope, check.status) == ("file", SignatureStatus.TAMPERED)
    assert "checksum" in check.reason


def test_a_signature_that_names_no_key(exported: bytes) -> None:
    private, public = _key()
    _, other = _key()
    signed = _signed(exported, private, None)
    [check] = verify_ogxm_signatures(signed, [other, public])
    assert check.status is SignatureStatus.VALID and check.key == public.hex()
    [check] = verify_ogxm_signatures(signed, [other])
    assert check.status is SignatureStatus.UNVERIFIED


def test_a_match_signature(analysed: tuple[MatchRecord, MatchAnalysis]) -> None:
    private, public = _key()
    doc = ogxm.binary_to_json(write_ogxm(analysed[0]))
    doc["match_signatures"] = [{"algorithm": "ed25519", "public_key": base64.b64encode(public).decode()}]
    doc["match_signatures"][0]["signature"] = base64.b64encode(private.sign(match_payload(doc, 0))).decode()
    signed = bytes(ogxm.json_to_binary(doc))
    assert ogxm.verify_match(signed, 0, keys={public})
    [check] = verify_ogxm_signatures(signed, [public])
    assert (check.scope, check.status) == ("match", SignatureStatus.VALID)
    renamed = copy.deepcopy(ogxm.binary_to_json(signed))
    renamed["player_white"] = "Somebody Else"
    [check] = verify_ogxm_signatures(bytes(ogxm.json_to_binary(renamed)), [public])
    assert check.status is SignatureStatus.TAMPERED


def test_public_keys() -> None:
    _, public = _key()
    assert parse_public_key(public.hex()) == public
    assert parse_public_key(base64.b64encode(public).decode()) == public
    for bad in ("", "zz" * 32, public.hex()[:-2], base64.b64encode(b"short").decode()):
        with pytest.raises(OgxmKeyError):
            parse_public_key(bad)


# ---- the CLI -------------------------------------------------------------------------------------


def run(*argv: str | Path) -> int:
    parser = argparse.ArgumentParser(prog="pulvezar")
    cli.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args([str(a) for a in argv])
    return int(args.func(args))


def test_cli_writes_and_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "analysis.ogxm"
    assert run("match", "analyse", MATCH, "--level", "0ply", "--quiet", "--ogxm-out", out) == 0
    data = out.read_bytes()
    assert ogxm.v2_problem(ogxm.binary_to_json(data)) is None
    assert analysis_joins(data, write_ogxm(read_match(MATCH)))
    capsys.readouterr()

    private, public = _key()
    _, other = _key()
    signed = tmp_path / "signed.ogxm"
    signed.write_bytes(_signed(data, private, public))
    assert run("match", "verify", signed, "--key", public.hex()) == 0
    assert "analysis 0: valid" in capsys.readouterr().out
    assert run("match", "verify", signed, "--key", other.hex(), "--json") == 1
    assert json.loads(capsys.readouterr().out)[0]["status"] == "other_key"
    assert run("match", "verify", out, "--key", public.hex()) == 1
    assert "unsigned" in capsys.readouterr().out
    assert run("match", "verify", signed, "--key", "not-a-key") == 2
    assert "not an Ed25519 public key" in capsys.readouterr().err


def test_cli_show_with_a_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, public = _key()
    path = tmp_path / "match.ogxm"
    path.write_bytes(write_ogxm(read_match(MATCH)))
    assert run("match", "show", path, "--json", "--key", public.hex()) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["signatures"][0]["status"] == "unsigned" and data["players"]


def test_cli_show_an_analysis_file(
    tmp_path: Path, exported: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "analysis.ogxm"
    path.write_bytes(exported)
    assert run("match", "show", path, "--json") == 0
    data = json.loads(capsys.readouterr().out)
    back = read_ogxm_analysis(exported)
    assert data["match_digest"] == back.match_digest and data["decisions"] == len(back.decisions) > 0
    assert run("match", "show", path) == 0
    assert f"OGXM analysis of match {back.match_digest}" in capsys.readouterr().out


def test_a_partial_analysis(analysed: tuple[MatchRecord, MatchAnalysis]) -> None:
    """One game analysed: its decisions only, at the plies of that game in the whole match."""
    from pulvezar.analysis.match import summarise

    record, analysis = analysed
    one = summarise(record, [analysis.games[1]])
    back = read_ogxm_analysis(write_ogxm_analysis(record, one))
    refs = ply_refs(record)
    game1 = {ref for (gi, _), ref in refs.items() if gi == 1}
    assert back.decisions and {d.ply_ref for d in back.decisions} <= game1
    assert set(back.by_action(record)) >= {(d.game, d.index) for d in one.decisions if not d.forced}
