"""Publisher keys a caller gives with an OGXM upload and the signature checks answered for them
(:func:`pulvezar.formats.ogxm_analysis.verify_ogxm_signatures`)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from services.gateway.models import Strict

MAX_KEYS = 16
MAX_KEY_CHARS = 100  # a raw Ed25519 key: 64 hex digits or 44 base64 characters

Key = Annotated[str, Field(min_length=1, max_length=MAX_KEY_CHARS)]
Keys = Annotated[
    list[Key],
    Field(
        min_length=1,
        max_length=MAX_KEYS,
        description="publisher keys (raw Ed25519 public keys, 32 bytes as 64 hex digits or base64, at most "
        f"{MAX_KEYS}): the answer's `signatures` checks each signature of the file against them; "
        "without keys no check is made and `signatures` is left out",
    ),
]
#: the multipart form's field: the keys separated by commas or white space
KeysField = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_KEYS * (MAX_KEY_CHARS + 1),
        description=f"publisher keys separated by commas or spaces (at most {MAX_KEYS}), as the JSON "
        "body's `keys`",
    ),
]
Status = Literal["valid", "other_key", "unsigned", "tampered", "unverified"]


class SignatureOut(Strict):
    """One signature's check (:class:`pulvezar.formats.ogxm_analysis.SignatureCheck`)."""

    match: int = Field(0, description="the upload's match (an index into the job's uploads; 0 for one file)")
    scope: Literal["analysis", "match", "file"] = Field(
        description="analysis: an analysis block's SIGN; match: a match signature (MSIG); file: the file as "
        "a whole (it carries no signature, does not read, or is not a single .ogxm file)"
    )
    index: int = Field(description="which analysis block or match signature")
    status: Status = Field(
        description="valid: verifies under a given key; other_key: verifies under the key the file names, "
        "not a given one; unsigned: no signature; tampered: does not verify under the key it names (or the "
        "checksum fails); unverified: names no key and no given key verifies it, or not checked (a "
        "stream's or archive's members)"
    )
    key: str | None = Field(None, description="the verifying key (hex), where known")
    key_id: str | None = Field(None, description="the signature's key_id, where it has one")
    reason: str = Field("", description="why, in words")


class VerifyOut(Strict):
    """``POST /v1/ogxm/verify``: every signature of the file, checked against the given keys."""

    ok: bool = Field(description="the file carries a signature and every one verifies under a given key")
    signatures: list[SignatureOut]
