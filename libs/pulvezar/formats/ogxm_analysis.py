"""OGXM analysis-shape files: a match analysis joined to its match by digest, and signature checks.

An analysis-shape file holds one analysis block and no games: its
``analysis_info`` carries the ``match_digest`` of the match file it analyses
(``ogxm.match_digest`` of the bytes :func:`~pulvezar.formats.ogxm.write_ogxm`
writes) and a ``decisions`` list, each entry addressed by ``ply_ref`` (the
match-wide ordinal of the ply, :func:`~pulvezar.formats.ogxm.ply_refs`) and
holding the records of that ply, as the codec's JSON projection names them:

* ``checker``: the candidate plays (``alternatives``, best first, each with its
  ``move`` steps, cubeful ``equity``, ``eval`` probabilities and ``is_played``);
  the codec derives ``best_equity``, ``played_equity`` and ``equity_loss``;
* ``cube``: ``no_double_equity``, ``double_take_equity``, ``double_pass_equity``
  (the doubler's view) and the ``correct_action`` -- on a dice ply the cube
  decision before the roll, on a double ply the doubling, on a take or drop
  ply the answer;
* ``roll``: the ``luck`` of the roll.

Equities are pulvezar's normalised equity (EMG in a match, equity per cube for
money), so the block's ``currency`` is ``cubeful``.  Lost on the way out: the
explanations, position types and plans, the MWC figures, forced plays (no
candidates; their luck is kept), and a decision on an action OGXM does not keep
(a "no double" before a roll that was never played).

Signatures (spec 8): :func:`verify_ogxm_signatures` checks every analysis
block's ``SIGN`` and every match signature (``MSIG``) of a file against the
publisher keys a caller gives, and says which of the cases it is
(:class:`SignatureStatus`); the "no" cases are results, not exceptions.
"""

from __future__ import annotations

import base64
import binascii
import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pulvezar.errors import PulvezarError
from pulvezar.formats.ogxm import _codec, _steps, encode, ply_refs, write_ogxm
from pulvezar.formats.record import MatchFileError, MatchRecord, apply_action
from pulvezar.match.game import Game

if TYPE_CHECKING:  # formats sits below analysis: the analysis is read by its attributes
    from pulvezar.analysis.matchanalysis.results import CandidateAnalysis, DecisionAnalysis, MatchAnalysis

__all__ = [
    "OgxmAlternative",
    "OgxmAnalysisFile",
    "OgxmCheckerRecord",
    "OgxmCubeRecord",
    "OgxmDecisionRecord",
    "OgxmKeyError",
    "SignatureCheck",
    "SignatureStatus",
    "analysis_joins",
    "is_ogxm_analysis",
    "parse_public_key",
    "read_ogxm_analysis",
    "to_ogxm_analysis_json",
    "verify_ogxm_signatures",
    "write_ogxm_analysis",
]

CURRENCY = "cubeful"  # normalised cubeful equity (EMG in a match)


class OgxmKeyError(PulvezarError):
    """A publisher key that is not a raw Ed25519 public key (32 bytes, hex or base64)."""


# ---- writing -----------------------------------------------------------------------------------


def _level(analysis: MatchAnalysis) -> dict[str, Any]:
    s = analysis.settings
    return {"preset": s.level, "checker_ply": s.ply, "cube_ply": s.cube_ply}


def _alt_level(c: CandidateAnalysis, analysis: MatchAnalysis) -> dict[str, Any] | None:
    s = analysis.settings
    if c.ply == "deep":
        return {"preset": "deep", "checker_ply": s.deep_ply, "rollout": {"trials": s.deep_trials}}
    if isinstance(c.ply, int) and c.ply != s.ply:
        return {"checker_ply": c.ply}
    return None


def _eval(probs: tuple[float, ...]) -> dict[str, float]:
    names = ("win", "gammon_win", "bg_win", "gammon_loss", "bg_loss")
    return {n: round(float(p), 4) for n, p in zip(names, probs, strict=True)}


def _checkers(record: MatchRecord, analysis: MatchAnalysis) -> dict[tuple[int, int], dict[str, Any]]:
    """The ``checker`` record of every analysed play with candidates, each game replayed once."""
    wanted: dict[int, dict[int, DecisionAnalysis]] = {}
    for d in analysis.decisions:
        if d.kind == "checker" and d.candidates:
            wanted.setdefault(d.game, {})[d.index] = d
    out: dict[tuple[int, int], dict[str, Any]] = {}
    for gi, plays in wanted.items():
        rec = record.games[gi]
        game = record.new_game(rec)
        for ai, action in enumerate(rec.actions[: max(plays) + 1]):
            if ai in plays:
                out[(gi, ai)] = _checker(game, plays[ai], analysis)
            apply_action(game, action)
    return out


def _checker(game: Game, d: DecisionAnalysis, analysis: MatchAnalysis) -> dict[str, Any]:
    """A play's candidates as OGXM alternatives, best first (``game`` is at the play)."""
    assert game.dice is not None
    legal = game.rules.legal_plays(game.position, game.dice)
    alts = []
    for c in sorted(d.candidates, key=lambda c: -c.equity):
        alt: dict[str, Any] = {
            "move": _steps(legal.find(c.notation), d.player),
            "equity": round(c.equity, 6),
            "eval": _eval(c.probs),
        }
        if c.notation == d.played:
            alt["is_played"] = True
        level = _alt_level(c, analysis)
        if level is not None:
            alt["level"] = level
        alts.append(alt)
    return {"alternatives": alts}


def _verdict(d: DecisionAnalysis) -> str:
    if d.kind == "take":
        return {"pass": "pass", "beaver": "beaver"}.get(d.best, "take")
    assert d.cube is not None
    if d.cube.action.lower().startswith("too good"):
        return "too_good"
    return "double" if d.best == "double" else "no_double"


def _cube(d: DecisionAnalysis) -> dict[str, Any] | None:
    c = d.cube
    if c is None or c.dt is None or c.dp is None:
        return None
    return {
        "no_double_equity": round(c.nd, 6),
        "double_take_equity": round(c.dt, 6),
        "double_pass_equity": round(c.dp, 6),
        "correct_action": _verdict(d),
    }


def to_ogxm_analysis_json(
    record: MatchRecord, analysis: MatchAnalysis, match_digest: bytes
) -> dict[str, Any]:
    """The analysis as the codec's JSON projection of an analysis-shape file bound to ``match_digest``."""
    refs = ply_refs(record)
    checkers = _checkers(record, analysis)
    by_ref: dict[int, dict[str, Any]] = {}
    for d in analysis.decisions:
        ref = refs.get((d.game, d.index))
        if ref is None:  # an action OGXM does not keep
            continue
        entry = by_ref.setdefault(ref, {"ply_ref": ref})
        if d.kind == "checker":
            if (d.game, d.index) in checkers:
                entry["checker"] = checkers[(d.game, d.index)]
            if d.luck is not None:
                entry["roll"] = {"luck": round(d.luck.value, 6)}
        else:
            cube = _cube(d)
            if cube is not None:
                entry["cube"] = cube
    engine = analysis.engine
    info: dict[str, Any] = {
        "match_digest": match_digest.hex(),
        "model_id": f"pulvezar/{engine.get('version', '')}".rstrip("/"),
        "currency": CURRENCY,
        "level": _level(analysis),
        "complete": len(analysis.games) == len(record.games),
        "decisions": [by_ref[r] for r in sorted(by_ref) if len(by_ref[r]) > 1],
    }
    if engine.get("name"):
        info["model_name"] = str(engine["name"])
    if engine.get("version"):
        info["engine_build"] = str(engine["version"])
    if engine.get("model_sha256"):
        info["model_digest"] = str(engine["model_sha256"])
    return {"checksum": "crc32", "analysis_info": info}


def write_ogxm_analysis(record: MatchRecord, analysis: MatchAnalysis) -> bytes:
    """The analysis as an analysis-shape OGXM file joined to ``write_ogxm(record)`` by its digest.

    Raises :class:`~pulvezar.formats.ogxm.OgxmUnsupportedError` for a match OGXM cannot carry or a
    document the codec's v2 rules refuse (the rule named).
    """
    digest = bytes(_codec().match_digest(write_ogxm(record)))
    return encode(to_ogxm_analysis_json(record, analysis, digest), "analysis", "analysis")


# ---- reading -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OgxmAlternative:
    """A candidate play: its OGXM steps ``(from, pips)``, equity, and whether it was played."""

    steps: tuple[tuple[int, int], ...]
    equity: float
    played: bool


@dataclass(frozen=True, slots=True)
class OgxmCheckerRecord:
    alternatives: tuple[OgxmAlternative, ...]
    best_equity: float | None
    played_equity: float | None
    equity_loss: float | None


@dataclass(frozen=True, slots=True)
class OgxmCubeRecord:
    """A cube decision (the doubler's view) and the right action (``no_double``, ``double``,
    ``too_good``, ``take``, ``pass``, ``beaver``)."""

    no_double: float | None
    double_take: float | None
    double_pass: float | None
    correct_action: str


@dataclass(frozen=True, slots=True)
class OgxmDecisionRecord:
    """The records of one ply."""

    ply_ref: int
    checker: OgxmCheckerRecord | None = None
    cube: OgxmCubeRecord | None = None
    luck: float | None = None


@dataclass(frozen=True, slots=True)
class OgxmAnalysisFile:
    """An analysis-shape file read back: what it joins (``match_digest``, hex) and its decisions."""

    match_digest: str
    analysis_id: str
    model_id: str
    currency: str | None
    decisions: tuple[OgxmDecisionRecord, ...]
    signed: bool

    def to_json(self) -> dict[str, Any]:
        """A summary: what it joins, who made it, how many decisions, whether it is signed."""
        return {
            "match_digest": self.match_digest,
            "analysis_id": self.analysis_id,
            "model_id": self.model_id,
            "currency": self.currency,
            "decisions": len(self.decisions),
            "checker": sum(d.checker is not None for d in self.decisions),
            "cube": sum(d.cube is not None for d in self.decisions),
            "luck": sum(d.luck is not None for d in self.decisions),
            "signed": self.signed,
        }

    def by_action(self, record: MatchRecord) -> dict[tuple[int, int], OgxmDecisionRecord]:
        """The decisions keyed by ``(game index, action index)`` of ``record`` (every action of a ply)."""
        by_ref = {d.ply_ref: d for d in self.decisions}
        return {key: by_ref[ref] for key, ref in ply_refs(record).items() if ref in by_ref}


def _num(obj: dict[str, Any], key: str) -> float | None:
    v = obj.get(key)
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def _decision(entry: Any) -> OgxmDecisionRecord:
    if not isinstance(entry, dict) or not isinstance(entry.get("ply_ref"), int):
        raise MatchFileError("an OGXM decision without a ply_ref", line=1, column=1)
    checker = cube = None
    c = entry.get("checker")
    if isinstance(c, dict):
        alts = tuple(
            OgxmAlternative(
                tuple((int(s["from"]), int(s["pips"])) for s in a.get("move", [])),
                float(a.get("equity", 0.0)),
                bool(a.get("is_played")),
            )
            for a in c.get("alternatives", [])
            if isinstance(a, dict)
        )
        checker = OgxmCheckerRecord(
            alts, _num(c, "best_equity"), _num(c, "played_equity"), _num(c, "equity_loss")
        )
    k = entry.get("cube")
    if isinstance(k, dict):
        cube = OgxmCubeRecord(
            _num(k, "no_double_equity"),
            _num(k, "double_take_equity"),
            _num(k, "double_pass_equity"),
            str(k.get("correct_action", "")),
        )
    roll = entry.get("roll")
    luck = _num(roll, "luck") if isinstance(roll, dict) else None
    return OgxmDecisionRecord(int(entry["ply_ref"]), checker, cube, luck)


def _document(data: bytes) -> dict[str, Any]:
    codec = _codec()
    if not codec.is_ogxm_binary(bytes(data[:4])):
        raise MatchFileError("not an OGXM file (no OGXM magic)", line=1, column=1)
    try:
        doc = codec.binary_to_json(bytes(data))
    except (codec.OgxmError, ValueError) as e:
        raise MatchFileError(f"the OGXM codec cannot read this file: {e}", line=1, column=1) from None
    if not isinstance(doc, dict):
        raise MatchFileError("the OGXM codec returned no document", line=1, column=1)
    return doc


def _is_shape(doc: dict[str, Any]) -> bool:
    info = doc.get("analysis_info")
    return "games" not in doc and isinstance(info, dict) and isinstance(info.get("match_digest"), str)


def is_ogxm_analysis(data: bytes) -> bool:
    """Whether bytes are an OGXM analysis-shape file (no games, an analysis bound by digest)."""
    try:
        return _is_shape(_document(data))
    except MatchFileError:
        return False


def read_ogxm_analysis(data: bytes) -> OgxmAnalysisFile:
    """Read an analysis-shape file (raises :class:`MatchFileError` for one that is not)."""
    doc = _document(data)
    if not _is_shape(doc):
        raise MatchFileError("not an OGXM analysis-shape file (no match_digest, or games)", line=1, column=1)
    info = doc["analysis_info"]
    decisions = info.get("decisions", [])
    if not isinstance(decisions, list):
        raise MatchFileError("OGXM decisions is not a list", line=1, column=1)
    return OgxmAnalysisFile(
        match_digest=info["match_digest"],
        analysis_id=str(info.get("analysis_id", "")),
        model_id=str(info.get("model_id", "")),
        currency=info.get("currency"),
        decisions=tuple(_decision(e) for e in decisions),
        signed=isinstance(info.get("signature"), dict),
    )


def analysis_joins(analysis_data: bytes, match_data: bytes) -> bool:
    """Whether an analysis-shape file is bound to this match file (their match digests agree)."""
    codec = _codec()
    try:
        return bytes(codec.match_digest(bytes(analysis_data))) == bytes(codec.match_digest(bytes(match_data)))
    except ValueError:
        return False


# ---- signatures --------------------------------------------------------------------------------


class SignatureStatus(enum.StrEnum):
    """What a signature check found.

    ``valid``: the signature verifies under one of the given keys; ``other_key``: it verifies
    under the public key the file names, which is not one of them; ``unsigned``: no
    signature; ``tampered``: the signature does not verify over the bytes it covers under the
    key it names (or the file's checksum fails); ``unverified``: the file names no key and
    none of the given keys verifies it (tampered, or signed by another key: nothing tells).
    """

    VALID = "valid"
    OTHER_KEY = "other_key"
    UNSIGNED = "unsigned"
    TAMPERED = "tampered"
    UNVERIFIED = "unverified"


@dataclass(frozen=True, slots=True)
class SignatureCheck:
    """One signature's check: ``scope`` ``analysis`` (block ``index``), ``match`` (``MSIG`` ``index``)
    or ``file`` (a file with no signature at all, or that does not read); ``key`` is the
    verifying key (hex) where it is known."""

    scope: str
    index: int
    status: SignatureStatus
    key: str | None = None
    key_id: str | None = None
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.status is SignatureStatus.VALID

    def to_json(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "index": self.index,
            "status": self.status.value,
            "key": self.key,
            "key_id": self.key_id,
            "reason": self.reason,
        }


def parse_public_key(text: str) -> bytes:
    """A raw Ed25519 public key from its hex (64 digits) or base64 text."""
    t = text.strip()
    try:
        raw = bytes.fromhex(t) if len(t) == 64 else base64.b64decode(t, validate=True)
    except (ValueError, binascii.Error):
        raw = b""
    if len(raw) != 32:
        raise OgxmKeyError(f"{text!r} is not an Ed25519 public key (32 bytes, hex or base64)", field="key")
    return raw


def _embedded_key(sig: dict[str, Any]) -> bytes | None:
    try:
        raw = base64.b64decode(str(sig.get("public_key", "")), validate=True)
    except (ValueError, binascii.Error):
        return None
    return raw if len(raw) == 32 else None


def _check(scope: str, index: int, sig: Any, verify: Any, keys: list[bytes]) -> SignatureCheck:
    if not isinstance(sig, dict) or not sig.get("signature"):
        return SignatureCheck(scope, index, SignatureStatus.UNSIGNED, reason="not signed")
    key_id = str(sig["key_id"]) if sig.get("key_id") else None
    named = _embedded_key(sig)
    if named is not None:
        given = named in keys
        if verify({named} if given else None):
            status, reason = (
                (SignatureStatus.VALID, "signed by a given key")
                if given
                else (SignatureStatus.OTHER_KEY, "valid, by a key not given")
            )
            return SignatureCheck(scope, index, status, named.hex(), key_id, reason)
        return SignatureCheck(
            scope,
            index,
            SignatureStatus.TAMPERED,
            named.hex(),
            key_id,
            "does not verify under the key it names",
        )
    for k in keys:
        if verify({k}):
            return SignatureCheck(
                scope, index, SignatureStatus.VALID, k.hex(), key_id, "signed by a given key"
            )
    return SignatureCheck(
        scope, index, SignatureStatus.UNVERIFIED, None, key_id, "names no key, and no given key verifies it"
    )


def verify_ogxm_signatures(data: bytes, keys: Iterable[bytes]) -> list[SignatureCheck]:
    """Check every signature of an OGXM file (analysis blocks, then match signatures) against ``keys``.

    A file with none gives one ``unsigned`` check (scope ``file``); one whose bytes the codec
    refuses (a checksum that fails) one ``tampered`` check.  Raises :class:`MatchFileError` for
    bytes that are not OGXM, and needs the ``cryptography`` package (the codec's ``verify`` extra).
    """
    codec = _codec()
    data = bytes(data)
    trusted = [bytes(k) for k in keys]
    if not codec.is_ogxm_binary(data[:4]):
        raise MatchFileError("not an OGXM file (no OGXM magic)", line=1, column=1)
    try:
        doc = codec.binary_to_json(data)
    except (codec.OgxmError, ValueError) as e:
        return [
            SignatureCheck("file", 0, SignatureStatus.TAMPERED, reason=f"the codec refuses the file: {e}")
        ]
    from ogxm.signature import analysis_blocks  # type: ignore[import-untyped]

    out: list[SignatureCheck] = []
    for i, block in enumerate(analysis_blocks(doc)):
        sig = block.get("signature") if isinstance(block, dict) else None

        def verify_block(ks: set[bytes] | None, i: int = i) -> bool:
            return bool(codec.verify_analysis(data, i, keys=ks))

        out.append(_check("analysis", i, sig, verify_block, trusted))
    msigs = doc.get("match_signatures")
    for i, sig in enumerate(msigs if isinstance(msigs, list) else []):

        def verify_msig(ks: set[bytes] | None, i: int = i) -> bool:
            return bool(codec.verify_match(data, i, keys=ks))

        out.append(_check("match", i, sig, verify_msig, trusted))
    if not any(c.status is not SignatureStatus.UNSIGNED for c in out):
        return [SignatureCheck("file", 0, SignatureStatus.UNSIGNED, reason="the file carries no signature")]
    return out
