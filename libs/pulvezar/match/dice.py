"""Provably fair dice: commit to a secret seed, reveal it after the game.

The dice of a game come from a 32-byte seed drawn from the operating system's
random source.  While the game runs only the commitment ``sha256(seed)`` is
shown; afterwards the seed is revealed and anyone can recompute every roll.

Die ``k`` (counting from 0, two per roll) is the first byte ``b < 252`` of
``sha256(seed || k || c)`` for ``c = 0, 1, ...`` (``k`` as 8 and ``c`` as 4
big-endian bytes), mapped to ``b % 6 + 1``.  Rejecting 252..255 leaves each
face exactly 42 of the 252 accepted byte values: no modulo bias.

>>> dice = FairDice(bytes(32))
>>> dice.commitment
'66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925'
>>> rolls = [dice.roll() for _ in range(3)]
>>> rolls
[(2, 1), (1, 6), (3, 2)]
>>> verify(dice.commitment, dice.reveal(), rolls)
True
>>> verify(dice.commitment, dice.reveal(), [(2, 1), (1, 6), (2, 3)])
False
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable

SEED_BYTES = 32
_ACCEPT = 252  # largest multiple of 6 not above 256


def commitment_of(seed: bytes) -> str:
    """The public commitment to ``seed``: its SHA-256 in hex."""
    return hashlib.sha256(seed).hexdigest()


def die(seed: bytes, k: int) -> int:
    """Die number ``k`` of the stream that ``seed`` defines (1..6)."""
    c = 0
    while True:
        block = hashlib.sha256(seed + k.to_bytes(8, "big") + c.to_bytes(4, "big")).digest()
        for b in block:
            if b < _ACCEPT:
                return b % 6 + 1
        c += 1


class FairDice:
    """A seeded, verifiable source of rolls for one game."""

    __slots__ = ("_next", "_seed")

    def __init__(self, seed: bytes | None = None) -> None:
        if seed is None:
            seed = os.urandom(SEED_BYTES)
        if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
            raise ValueError(f"a dice seed is {SEED_BYTES} bytes")
        self._seed = seed
        self._next = 0

    @property
    def commitment(self) -> str:
        """What may be shown while the game runs."""
        return commitment_of(self._seed)

    @property
    def rolled(self) -> int:
        """How many rolls have been taken."""
        return self._next // 2

    def roll(self) -> tuple[int, int]:
        """The next roll, in the order the dice fell."""
        k = self._next
        self._next += 2
        return die(self._seed, k), die(self._seed, k + 1)

    def reveal(self) -> str:
        """The seed in hex: publish it once the game is over."""
        return self._seed.hex()


def verify(commitment: str, seed_hex: str, rolls: Iterable[tuple[int, int]]) -> bool:
    """Whether ``seed_hex`` matches ``commitment`` and produced exactly ``rolls``."""
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        return False
    if len(seed) != SEED_BYTES or commitment_of(seed) != commitment.lower():
        return False
    return all((die(seed, 2 * i), die(seed, 2 * i + 1)) == tuple(r) for i, r in enumerate(rolls))
