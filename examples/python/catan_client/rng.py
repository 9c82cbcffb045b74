"""The game's pseudo-random generator, written from protocol.md section 23.

ChaCha8 keyed from the 64-bit seed with PCG32 (``rand_chacha``'s ``ChaCha8Rng``
seeded by ``seed_from_u64``), uniform integers by ``rand`` 0.9's widening-multiply
method, and ``rand`` 0.9's shuffle.
"""

from __future__ import annotations

from typing import MutableSequence, TypeVar

MASK32 = 0xFFFF_FFFF
MASK64 = 0xFFFF_FFFF_FFFF_FFFF
_CONSTANTS = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)

T = TypeVar("T")


def seed_key(seed: int) -> list[int]:
    """The 8 key words PCG32 makes from ``seed`` (``SeedableRng::seed_from_u64``)."""
    state = seed & MASK64
    words = []
    for _ in range(8):
        state = (state * 6364136223846793005 + 11634580027462260723) & MASK64
        xorshifted = (((state >> 18) ^ state) >> 27) & MASK32
        rot = state >> 59
        words.append(((xorshifted >> rot) | (xorshifted << ((32 - rot) % 32))) & MASK32)
    return words


def _rotl(x: int, n: int) -> int:
    return ((x << n) | (x >> (32 - n))) & MASK32


def _quarter(s: list[int], a: int, b: int, c: int, d: int) -> None:
    s[a] = (s[a] + s[b]) & MASK32
    s[d] = _rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & MASK32
    s[b] = _rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & MASK32
    s[d] = _rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & MASK32
    s[b] = _rotl(s[b] ^ s[c], 7)


def chacha8_block(key: list[int], block: int) -> list[int]:
    """The 16 output words of ChaCha8 block ``block`` (stream 0)."""
    start = [*_CONSTANTS, *key, block & MASK32, (block >> 32) & MASK32, 0, 0]
    s = list(start)
    for _ in range(4):
        _quarter(s, 0, 4, 8, 12)
        _quarter(s, 1, 5, 9, 13)
        _quarter(s, 2, 6, 10, 14)
        _quarter(s, 3, 7, 11, 15)
        _quarter(s, 0, 5, 10, 15)
        _quarter(s, 1, 6, 11, 12)
        _quarter(s, 2, 7, 8, 13)
        _quarter(s, 3, 4, 9, 14)
    return [(x + y) & MASK32 for x, y in zip(s, start)]


class GameRng:
    """The game's generator: 32-bit words of ChaCha8 in order, and the draws built on them."""

    def __init__(self, seed: int) -> None:
        self._key = seed_key(seed)
        self._block = 0
        self._words: list[int] = []
        self.words_used = 0

    def next_u32(self) -> int:
        """The next output word."""
        if not self._words:
            self._words = chacha8_block(self._key, self._block)
            self._block += 1
        self.words_used += 1
        return self._words.pop(0)

    def uniform(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (``random_range(0..n)`` for a 32-bit type)."""
        return self.inclusive(0, n - 1)

    def inclusive(self, low: int, high: int) -> int:
        """A uniform integer in ``[low, high]`` (rand 0.9's biased widening multiply)."""
        if high < low:
            raise ValueError("empty range")
        rng = (high - low + 1) & MASK32
        if rng == 0:
            return low + self.next_u32()
        m = self.next_u32() * rng
        hi, lo = m >> 32, m & MASK32
        if lo > ((-rng) & MASK32):
            hi2 = (self.next_u32() * rng) >> 32
            if lo + hi2 > MASK32:
                hi += 1
        return low + hi

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffles in place as ``SliceRandom::shuffle`` of rand 0.9 does."""
        if len(items) <= 1:
            return
        n, chunk, left = 0, 0, 1
        for i in range(len(items)):
            k = n + 1
            if left == 0:
                bound, count = _bound(k)
                chunk = self.uniform(bound)
                left = count - 1
            else:
                left -= 1
            if left == 0:
                j = chunk
            else:
                j = chunk % k
                chunk //= k
            items[i], items[j] = items[j], items[i]
            n = k


def _bound(k: int) -> tuple[int, int]:
    """The product ``k * (k+1) * ...`` of as many factors as stay below 2^32, and their count."""
    product, current = k, k + 1
    while product * current <= MASK32:
        product *= current
        current += 1
    return product, current - k
