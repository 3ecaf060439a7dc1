"""Who owns a job, a game or an archive: the stored owner of an API key."""

from __future__ import annotations

import hashlib


def owner_of(secret: str) -> str:
    """The stored owner of a key's jobs: a digest of its secret (never the secret)."""
    return hashlib.sha256(b"pulvezar-job-owner:" + secret.encode()).hexdigest()[:32]
