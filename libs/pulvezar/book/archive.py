"""A book's work directory as checksummed, compressed parts, to commit and to continue elsewhere.

Every file of a work directory is written once and never changed (the manifest, each search, each
candidate's rollout chunks, each set of replies), so the work can be committed **append-only**:
``pack`` writes the files that no earlier part holds into the next part of an archive folder,
``FOLDER/part-0001.tar.xz``, ``part-0002.tar.xz``, ..., each with its SHA-256 beside it
(``part-NNNN.tar.xz.sha256``, in ``sha256sum`` format).  A part's bytes depend only on its files
(sorted names, no times or owners), and a later session's commit adds a part instead of rewriting
the whole work.  ``unpack`` checks every part's sum and puts the files into a work directory; a
file already there (or packed before) with other bytes is refused rather than overwritten, so
finished work is never lost.  A run on the unpacked directory reuses every trial it holds
(:class:`~pulvezar.book.generate.BookGenerator`).
"""

from __future__ import annotations

import hashlib
import io
import lzma
import os
import re
import tarfile
from pathlib import Path

from pulvezar.book.model import BookError

__all__ = ["pack", "parts", "unpack"]

_PART = re.compile(r"part-(\d{4})\.tar\.xz")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def parts(folder: str | Path) -> list[Path]:
    """The parts of an archive folder, in order."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if _PART.fullmatch(p.name))


def _members(part: Path) -> dict[str, bytes]:
    """The files of a part, after checking its sum."""
    sums = part.with_name(part.name + ".sha256")
    if not sums.is_file():
        raise BookError(f"{sums} is missing: {part.name} cannot be checked", field="archive")
    want = sums.read_text().split()[0]
    if _sha256(part) != want:
        raise BookError(f"{part} does not match its checksum {want[:16]}...", field="archive")
    out: dict[str, bytes] = {}
    with tarfile.open(part, mode="r:xz") as tar:
        for m in tar.getmembers():
            if not m.isfile() or "/" in m.name or m.name.startswith("."):
                raise BookError(f"{part}: unexpected member {m.name!r}", field="archive")
            f = tar.extractfile(m)
            out[m.name] = f.read() if f is not None else b""
    return out


def _packed(folder: Path) -> dict[str, bytes]:
    have: dict[str, bytes] = {}
    for part in parts(folder):
        have.update(_members(part))
    return have


def pack(workdir: str | Path, folder: str | Path) -> Path | None:
    """Write ``workdir``'s files that no part of ``folder`` holds into its next part (with its
    ``.sha256``); returns the part, or None when every file is packed already."""
    workdir, folder = Path(workdir), Path(folder)
    if not (workdir / "manifest.json").is_file():
        raise BookError(f"{workdir} is not a book's work directory (no manifest.json)", field="workdir")
    have = _packed(folder)
    new: list[tuple[str, bytes]] = []
    for p in sorted(workdir.iterdir()):
        if not p.is_file() or p.name.startswith("."):  # temporary files of a running job
            continue
        data = p.read_bytes()
        if p.name in have:
            if have[p.name] != data:
                raise BookError(f"{p} differs from its packed copy: work files never change", field="workdir")
            continue
        new.append((p.name, data))
    if not new:
        return None
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in new:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    existing = parts(folder)
    number = int(_PART.fullmatch(existing[-1].name).group(1)) + 1 if existing else 1  # type: ignore[union-attr]
    part = folder / f"part-{number:04d}.tar.xz"
    folder.mkdir(parents=True, exist_ok=True)
    tmp = part.with_name(f".{part.name}.{os.getpid()}.tmp")
    tmp.write_bytes(lzma.compress(raw.getvalue(), preset=9 | lzma.PRESET_EXTREME))
    os.replace(tmp, part)
    part.with_name(part.name + ".sha256").write_text(f"{_sha256(part)}  {part.name}\n")
    return part


def unpack(folder: str | Path, workdir: str | Path) -> int:
    """Check every part of ``folder`` and put its files into ``workdir``; returns how many were added
    (files already there with the same bytes are kept)."""
    folder, workdir = Path(folder), Path(workdir)
    found = parts(folder)
    if not found:
        raise BookError(f"{folder} holds no part-NNNN.tar.xz", field="archive")
    workdir.mkdir(parents=True, exist_ok=True)
    added = 0
    for part in found:
        for name, data in _members(part).items():
            target = workdir / name
            if target.exists():
                if target.read_bytes() != data:
                    raise BookError(f"{target} exists with other contents; not overwritten", field="workdir")
                continue
            tmp = target.with_name(f".{name}.{os.getpid()}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, target)
            added += 1
    return added
