"""OGXM over REST (issue 45): a finished analysis as an analysis-shape file joined to its match by
digest, and the signature checks of an upload against the publisher keys its caller gives
(:mod:`pulvezar.formats.ogxm_analysis`)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from pulvezar.formats.files import detect_format
from pulvezar.formats.ogxm import OgxmUnavailableError, OgxmUnsupportedError, _codec
from pulvezar.formats.ogxm_analysis import (
    OgxmKeyError,
    SignatureCheck,
    SignatureStatus,
    parse_public_key,
)
from services.common.sandbox import ParseFailed, ParsePool, ParseRejected
from services.gateway.problems import ProblemError, invalid
from services.gateway.services.analyses import AnalysisJobs
from services.gateway.signature_models import MAX_KEY_CHARS, MAX_KEYS, SignatureOut
from services.gateway.uploads import problem

OGXM_MEDIA_TYPE = "application/octet-stream"
_CONTAINERS = (".ogxms", ".ogxms.zst", ".zip")


def _unavailable(e: Exception) -> ProblemError:
    return ProblemError(503, f"OGXM is not available on this gateway ({e})", kind="ogxm-unavailable")


def parse_keys(keys: list[str] | str | None) -> list[bytes] | None:
    """The raw Ed25519 keys of a request's ``keys`` (a list, or a form field's text separated by commas
    or white space); ``None`` without keys.  A bad key or too many: a 422 naming ``keys``."""
    if keys is None:
        return None
    texts = [k for k in re.split(r"[\s,]+", keys) if k] if isinstance(keys, str) else keys
    if not texts:
        raise invalid("keys", "no key given (leave the field out for no signature check)")
    if len(texts) > MAX_KEYS:
        raise invalid("keys", f"at most {MAX_KEYS} keys")
    out = []
    for i, text in enumerate(texts):
        if len(text) > MAX_KEY_CHARS:
            raise invalid("keys", f"key {i} is longer than {MAX_KEY_CHARS} characters")
        try:
            out.append(parse_public_key(text))
        except OgxmKeyError:
            raise invalid("keys", f"key {i} is not an Ed25519 public key (32 bytes, hex or base64)") from None
    return out


#: the codec's signature check, run in a parser process (:mod:`services.common.sandbox`): hostile bytes reach
#: the native codec only there, under its CPU, memory and wall-clock limits
VERIFY_TARGET = "pulvezar.formats.ogxm_analysis:verify_ogxm_signatures"


async def _file_checks(
    pool: ParsePool, data: bytes, keys: list[bytes], fmt: str | None, name: str | None
) -> list[SignatureCheck]:
    if fmt in ("ogxms", "zip") or (name or "").lower().endswith(_CONTAINERS) or data[:2] == b"PK":
        why = "a stream's or archive's members are not checked (check each .ogxm)"
        return [SignatureCheck("file", 0, SignatureStatus.UNVERIFIED, reason=why)]
    if (fmt or detect_format(data, name)) != "ogxm":
        return [SignatureCheck("file", 0, SignatureStatus.UNSIGNED, reason="not an OGXM file: no signature")]
    try:
        checks: list[SignatureCheck] = await pool.run_async(VERIFY_TARGET, data, keys)
    except ParseRejected as e:  # the codec refused the bytes
        why = f"not a readable OGXM file ({e.reason})"
        return [SignatureCheck("file", 0, SignatureStatus.TAMPERED, reason=why)]
    except ParseFailed as e:  # too slow, too large, or the parsers busy
        raise problem(e, "file") from None
    return checks


async def signatures(
    matches: list[dict[str, Any]], keys: list[bytes] | None, pool: ParsePool
) -> list[SignatureOut] | None:
    """The signature checks of an upload's match files (``{"data", "format", "filename"}``), or ``None``
    without keys (no check).  A file that is not a single ``.ogxm`` is one check of scope ``file``:
    ``unsigned`` (other formats carry none) or ``unverified`` (a stream's or archive's members, by format
    or name, are not checked); an ``.ogxm`` is checked in ``pool``'s parser processes."""
    if keys is None:
        return None
    try:
        _codec()  # 503 here when the codec is missing, rather than a "tampered" file from the parser
    except (OgxmUnavailableError, ImportError) as e:
        raise _unavailable(e) from None
    out: list[SignatureOut] = []
    for m, f in enumerate(matches):
        checks = await _file_checks(pool, f["data"], keys, f.get("format"), f.get("filename"))
        out += [SignatureOut(match=m, **c.to_json()) for c in checks]
    return out


async def analysis_file(store: AnalysisJobs, job_id: str, match: int) -> tuple[bytes, str]:
    """Match ``match`` of a finished job's analysis as an OGXM analysis-shape file and its file name.
    Not analysed yet: 409; Tavla (OGXM has none) or a match OGXM cannot carry: 422 naming ``match``."""
    from pulvezar.formats.ogxm_analysis import write_ogxm_analysis

    record, analysis = await store.match_analysis(job_id, match)
    try:
        data = await asyncio.to_thread(write_ogxm_analysis, record, analysis)
    except OgxmUnavailableError as e:
        raise _unavailable(e) from None
    except OgxmUnsupportedError as e:
        reason = f"no OGXM analysis of this match: {e}"
        raise ProblemError(422, reason, kind="ogxm-unsupported", errors=[("match", reason)]) from None
    return data, await store.download_name(job_id, match, "-analysis.ogxm")
