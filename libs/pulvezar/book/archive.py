"""A book's work directory as one compressed, checksummed file, to commit and to continue elsewhere.

``pack`` writes every finished item of a work directory (the manifest, the searches, each
candidate's rollout chunks, the replies) into a ``.tar.xz`` whose bytes depend only on those
files (sorted names, no times or owners), and its SHA-256 beside it (``NAME.sha256``, in
``sha256sum`` format).  ``unpack`` checks that sum and puts the files into a work directory; a
file already there with other bytes is refused rather than overwritten, so finished work is
never lost.  A run on the unpacked directory then reuses every trial it holds
(:class:`~pulvezar.book.generate.BookGenerator`).
"""

from __future__ import annotations

import hashlib
import io
import lzma
import os
import tarfile
from pathlib import Path

from pulvezar.book.model import BookError

__all__ = ["pack", "unpack"]


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _sum_path(archive: Path) -> Path:
    return archive.with_name(archive.name + ".sha256")


def pack(workdir: str | Path, archive: str | Path) -> str:
    """Write ``workdir``'s files into ``archive`` (``.tar.xz``) and ``archive.sha256``; returns the sum."""
    workdir, archive = Path(workdir), Path(archive)
    if not (workdir / "manifest.json").is_file():
        raise BookError(f"{workdir} is not a book's work directory (no manifest.json)", field="workdir")
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for p in sorted(workdir.iterdir()):
            if not p.is_file() or p.name.startswith("."):  # temporary files of a running job
                continue
            data = p.read_bytes()
            info = tarfile.TarInfo(p.name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    archive.parent.mkdir(parents=True, exist_ok=True)
    tmp = archive.with_name(f".{archive.name}.{os.getpid()}.tmp")
    tmp.write_bytes(lzma.compress(raw.getvalue(), preset=9 | lzma.PRESET_EXTREME))
    os.replace(tmp, archive)
    digest = _sha256(archive)
    _sum_path(archive).write_text(f"{digest}  {archive.name}\n")
    return digest


def unpack(archive: str | Path, workdir: str | Path) -> int:
    """Check ``archive`` against its ``.sha256`` and put its files into ``workdir``; returns how many
    were added (files already there with the same bytes are kept)."""
    archive, workdir = Path(archive), Path(workdir)
    sums = _sum_path(archive)
    if not sums.is_file():
        raise BookError(f"{sums} is missing: the archive cannot be checked", field="archive")
    want = sums.read_text().split()[0]
    if _sha256(archive) != want:
        raise BookError(f"{archive} does not match its checksum {want[:16]}...", field="archive")
    workdir.mkdir(parents=True, exist_ok=True)
    added = 0
    with tarfile.open(archive, mode="r:xz") as tar:
        for m in tar.getmembers():
            if not m.isfile() or "/" in m.name or m.name.startswith("."):
                raise BookError(f"{archive}: unexpected member {m.name!r}", field="archive")
            f = tar.extractfile(m)
            data = f.read() if f is not None else b""
            target = workdir / m.name
            if target.exists():
                if target.read_bytes() != data:
                    raise BookError(f"{target} exists with other contents; not overwritten", field="workdir")
                continue
            tmp = target.with_name(f".{m.name}.{os.getpid()}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, target)
            added += 1
    return added
