"""Winning shapes and the divider.

Everything here depends only on the tile multiset of the *standing* part (concealed tiles + winning tile,
as 34 counts packed in ``bytes`` — a compact, hashable cache key) and on how many sets are already melded,
so it is cached with ``lru_cache``.

A candidate is one way to read the standing tiles as a winning hand:

* ``regular``         4 sets + a pair (the melded sets are added later by the caller);
* ``seven_pairs``     seven pairs (a 4-of-a-kind counts as two pairs), no melds;
* ``thirteen_orphans`` 13 terminals/honours + one of them again, no melds;
* ``honors_knitted``  全不靠 / 七星不靠: 14 single tiles from one knitted straight + the 7 honours, no melds;
* ``knitted_straight`` 组合龙 (147/258/369 in three suits) + a set + a pair, at most one meld.

Sets are ``(CHOW_SET, lowest tile)`` or ``(PUNG_SET, tile)``.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import permutations
from typing import NamedTuple, Optional

CHOW_SET, PUNG_SET = 0, 1
ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
HONORS = tuple(range(27, 34))
# The six knitted straights: suit order (for 147, 258, 369) is a permutation of (m, p, s).
KNITTED_STRAIGHTS = tuple(
    tuple(sorted(s * 9 + r for s, start in zip(perm, (0, 1, 2)) for r in (start, start + 3, start + 6)))
    for perm in permutations((0, 1, 2))
)


class Candidate(NamedTuple):
    form: str
    sets: tuple = ()              # standing sets only
    pair: Optional[int] = None
    knit: tuple = ()              # the 9 tiles of a knitted straight (knitted_straight / honors_knitted forms)


def _sets_only(counts: list, n_sets: int, start: int, acc: list, out: list) -> None:
    """All ways to split ``counts`` into exactly ``n_sets`` sets (first-tile recursion, no duplicates)."""
    i = start
    while i < 34 and counts[i] == 0:
        i += 1
    if i == 34:
        if n_sets == 0:
            out.append(tuple(acc))
        return
    if n_sets == 0:
        return
    c = counts[i]
    if c >= 3:
        counts[i] -= 3
        acc.append((PUNG_SET, i))
        _sets_only(counts, n_sets - 1, i, acc, out)
        acc.pop()
        counts[i] += 3
    if i < 27 and i % 9 <= 6 and counts[i + 1] and counts[i + 2]:
        counts[i] -= 1
        counts[i + 1] -= 1
        counts[i + 2] -= 1
        acc.append((CHOW_SET, i))
        _sets_only(counts, n_sets - 1, i, acc, out)
        acc.pop()
        counts[i] += 1
        counts[i + 1] += 1
        counts[i + 2] += 1


def _regular(counts: tuple, n_sets: int) -> list:
    out: list = []
    work = list(counts)
    for p in range(34):
        if work[p] >= 2:
            work[p] -= 2
            found: list = []
            _sets_only(work, n_sets, 0, [], found)
            out.extend(Candidate("regular", s, p) for s in found)
            work[p] += 2
    return out


def _seven_pairs(counts: tuple) -> list:
    if sum(counts) == 14 and all(c in (0, 2, 4) for c in counts):
        return [Candidate("seven_pairs")]
    return []


def _thirteen_orphans(counts: tuple) -> list:
    if sum(counts) == 14 and all(counts[t] >= 1 for t in ORPHANS) and sum(counts[t] for t in ORPHANS) == 14:
        return [Candidate("thirteen_orphans")]
    return []


def _honors_knitted(counts: tuple) -> list:
    if sum(counts) != 14 or max(counts) > 1:
        return []
    suited = [t for t in range(27) if counts[t]]
    if not 7 <= len(suited) <= 9:
        return []
    for knit in KNITTED_STRAIGHTS:
        if set(suited) <= set(knit):
            return [Candidate("honors_knitted", knit=knit)]
    return []


def _knitted_straight(counts: tuple, n_melds: int) -> list:
    if n_melds > 1:
        return []
    out = []
    for knit in KNITTED_STRAIGHTS:
        if all(counts[t] for t in knit):
            rest = list(counts)
            for t in knit:
                rest[t] -= 1
            for cand in _regular(bytes(rest), 1 - n_melds):
                out.append(Candidate("knitted_straight", cand.sets, cand.pair, knit))
    return out


@lru_cache(maxsize=1 << 15)
def candidates(counts: tuple, n_melds: int) -> tuple:
    """Every reading of the standing tiles (counts incl. the winning tile) as a winning hand."""
    if sum(counts) != 14 - 3 * n_melds:
        return ()
    out = _regular(counts, 4 - n_melds)
    if n_melds == 0:
        out += _seven_pairs(counts) + _thirteen_orphans(counts) + _honors_knitted(counts)
    out += _knitted_straight(counts, n_melds)
    return tuple(out)


def _splits(counts: list, n_sets: int, i: int) -> bool:
    """True if ``counts`` (from tile ``i`` on) split into exactly ``n_sets`` sets (``_sets_only``, first hit)."""
    while i < 34 and counts[i] == 0:
        i += 1
    if i == 34:
        return n_sets == 0
    if n_sets == 0:
        return False
    c = counts[i]
    if c >= 3:
        counts[i] -= 3
        ok = _splits(counts, n_sets - 1, i)
        counts[i] += 3
        if ok:
            return True
    if i < 27 and i % 9 <= 6 and counts[i + 1] and counts[i + 2]:
        counts[i] -= 1
        counts[i + 1] -= 1
        counts[i + 2] -= 1
        ok = _splits(counts, n_sets - 1, i)
        counts[i] += 1
        counts[i + 1] += 1
        counts[i + 2] += 1
        return ok
    return False


def _is_regular(counts: list, n_sets: int) -> bool:
    """True if ``_regular(counts, n_sets)`` has a reading (a pair + ``n_sets`` sets), without listing them."""
    for p in range(34):
        if counts[p] >= 2:
            counts[p] -= 2
            ok = _splits(counts, n_sets, 0)
            counts[p] += 2
            if ok:
                return True
    return False


def _near(counts) -> list:
    """Tiles that can take part in a set or pair with the tiles of ``counts``: the tiles held and, in a suit,
    those up to two ranks away (no other tile can complete a 4 sets + pair reading)."""
    out = set()
    for t in range(34):
        if counts[t]:
            out.add(t)
            if t < 27:
                base = t - t % 9
                out.update(x for x in range(max(base, t - 2), min(base + 8, t + 2) + 1))
    return sorted(out)


@lru_cache(maxsize=1 << 15)
def regular_waits(counts: tuple, fifth_copy: bool = False) -> frozenset:
    """Tiles completing 4 sets + pair (with the melds already taken out) for a 3n+1 standing part.
    A tile whose four copies are all standing is no wait unless ``fifth_copy`` (the reference engine's way)."""
    n_sets = (sum(counts) - 1) // 3
    out = set()
    work = list(counts)
    for t in _near(counts):
        if work[t] >= 4 and not fifth_copy:
            continue
        work[t] += 1
        if _is_regular(work, n_sets):
            out.add(t)
        work[t] -= 1
    return frozenset(out)


@lru_cache(maxsize=1 << 15)
def seven_pairs_waits(counts: tuple) -> frozenset:
    if sum(counts) != 13:
        return frozenset()
    singles = [t for t in range(34) if counts[t] % 2 == 1]
    return frozenset(singles) if len(singles) == 1 and counts[singles[0]] < 4 else frozenset()


@lru_cache(maxsize=1 << 15)
def all_waits(counts: tuple, n_melds: int) -> tuple:
    """Tiles that complete the standing tiles into any winning shape (a 5th copy never counts)."""
    out = []
    work = list(counts)
    for t in range(34):
        if work[t] >= 4:
            continue
        work[t] += 1
        if candidates(bytes(work), n_melds):
            out.append(t)
        work[t] -= 1
    return tuple(out)
