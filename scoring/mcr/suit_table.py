"""The per-suit table of the divider: which 9-count vectors of one suit split into sets (or sets and one pair).

A suit's part of a hand is its 9 counts (each 0..4), packed in base 5 as its key: ``sum(c[r] * 5 ** r)`` (so a
tile added to rank r, below 4 copies, is ``key + RANK[r]``). ``complete(key)`` says whether the vector splits into
sets alone (its size a multiple of 3) or into sets and one pair (size 3n + 2): 21,743 of the 5 ** 9 vectors do,
the empty suit included. ``BITS`` is that answer for every key as a bitmap (5 ** 9 bits, 244 kB).

The bitmap ships with the package (``suit_table.bin``, zlib-compressed, written by
``python -m mjtable.scoring.mcr.suit_table``); ``build_keys()`` makes the same keys from nothing and
``tests/test_mcr_fast.py`` checks that the file holds exactly them and that they agree with an exhaustive split of
every vector. If the file is missing, the bitmap is built at the first import (about 0.1 s).

``splits(base, key)`` lists a complete suit's readings, as the first-tile recursion of ``shapes`` finds them
(pair rank ascending, then a pung before a chow at each tile), with tile ids offset by ``base``; it is computed on
first use per key (at most the table's size), by a recursion that enters only branches the bitmap says complete.
"""

from __future__ import annotations

import os
import zlib
from itertools import combinations_with_replacement

CHOW_SET, PUNG_SET = 0, 1  # as shapes.CHOW_SET / shapes.PUNG_SET
RANK = tuple(5**r for r in range(9))
N_KEYS = 5**9
FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "suit_table.bin")
_SETS = tuple((CHOW_SET, r) for r in range(7)) + tuple((PUNG_SET, r) for r in range(9))


def key(counts, base: int = 0) -> int:
    """The base-5 key of the 9 counts ``counts[base:base + 9]``."""
    k = 0
    for r in range(8, -1, -1):
        k = k * 5 + counts[base + r]
    return k


def build_keys() -> list:
    """The sorted keys of every complete suit vector (each count at most 4, at most 4 sets + 1 pair)."""
    out = set()
    for n in range(5):
        for sets in combinations_with_replacement(_SETS, n):
            base = [0] * 9
            for kind, r in sets:
                if kind == CHOW_SET:
                    base[r] += 1
                    base[r + 1] += 1
                    base[r + 2] += 1
                else:
                    base[r] += 3
            if max(base) > 4:
                continue
            out.add(key(base))
            for p in range(9):
                if base[p] <= 2:
                    base[p] += 2
                    out.add(key(base))
                    base[p] -= 2
    return sorted(out)


def bitmap(keys) -> bytes:
    bits = bytearray((N_KEYS + 7) // 8)
    for k in keys:
        bits[k >> 3] |= 1 << (k & 7)
    return bytes(bits)


def _load() -> bytes:
    try:
        with open(FILE, "rb") as f:
            return zlib.decompress(f.read())
    except (OSError, zlib.error):
        return bitmap(build_keys())


BITS = _load()


def complete(k: int) -> bool:
    """True if the suit vector with key ``k`` splits into sets, or sets and one pair."""
    return (BITS[k >> 3] >> (k & 7)) & 1 == 1


_CHOW = tuple(RANK[i] + RANK[i + 1] + RANK[i + 2] for i in range(7))


def _sets_of(k: int, i: int, base: int, acc: list, out: list) -> None:
    """All ways to split the suit with key ``k`` (sets only, lower ranks than ``i`` empty) into sets, in the
    first-tile recursion's order (a pung before a chow at the lowest tile); a branch whose rest the bitmap says
    cannot split is not entered."""
    if not k:
        out.append(tuple(acc))
        return
    while not k // RANK[i] % 5:
        i += 1
    if k // RANK[i] % 5 >= 3:
        j = k - 3 * RANK[i]
        if (BITS[j >> 3] >> (j & 7)) & 1:
            acc.append((PUNG_SET, base + i))
            _sets_of(j, i, base, acc, out)
            acc.pop()
    if i <= 6 and k // RANK[i + 1] % 5 and k // RANK[i + 2] % 5:
        j = k - _CHOW[i]
        if (BITS[j >> 3] >> (j & 7)) & 1:
            acc.append((CHOW_SET, base + i))
            _sets_of(j, i, base, acc, out)
            acc.pop()


_SPLITS: dict = {}


def splits(base: int, k: int) -> tuple:
    """``((pair tile or None, sets), ...)`` for a complete suit (``complete(k)``) starting at tile ``base``."""
    got = _SPLITS.get((base, k))
    if got is None:
        out: list = []
        if sum(k // RANK[r] % 5 for r in range(9)) % 3 == 0:
            found: list = []
            _sets_of(k, 0, base, [], found)
            out = [(None, x) for x in found]
        else:
            for p in range(9):
                j = k - 2 * RANK[p]
                if k // RANK[p] % 5 >= 2 and (BITS[j >> 3] >> (j & 7)) & 1:
                    found = []
                    _sets_of(j, 0, base, [], found)
                    out += [(base + p, x) for x in found]
        got = _SPLITS[(base, k)] = tuple(out)
    return got


def write(path: str = FILE) -> int:
    keys = build_keys()
    with open(path, "wb") as f:
        f.write(zlib.compress(bitmap(keys), 9))
    return len(keys)


if __name__ == "__main__":
    print(f"{write()} keys written to {FILE}")
