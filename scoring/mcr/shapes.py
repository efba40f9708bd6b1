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

The 4 sets + pair readings and the waits look each suit up in ``suit_table`` (which suit vectors split into sets,
and how); ``_regular_by_search`` and ``_regular_waits_by_search`` are the plain searches they replace, kept as
the reference the tests compare them with.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from functools import lru_cache
from itertools import permutations, product

from .suit_table import BITS, RANK, splits

CHOW_SET, PUNG_SET = 0, 1
ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
HONORS = tuple(range(27, 34))
# The six knitted straights: suit order (for 147, 258, 369) is a permutation of (m, p, s).
KNITTED_STRAIGHTS = tuple(
    tuple(sorted(s * 9 + r for s, start in zip(perm, (0, 1, 2)) for r in (start, start + 3, start + 6)))
    for perm in permutations((0, 1, 2))
)


# One reading of the standing tiles: its form, the standing sets only, the pair (None if none), and the 9 tiles
# of a knitted straight (knitted_straight / honors_knitted forms).
Candidate = namedtuple("Candidate", "form sets pair knit", defaults=((), None, ()))


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


def _regular_by_search(counts: tuple, n_sets: int) -> list:
    """The 4 sets + pair readings by a plain search (the reference for ``_regular``)."""
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


def suit_keys(counts) -> tuple:
    """The base-5 keys of the three suits' counts (``suit_table``)."""
    return tuple(
        counts[b]
        + 5 * counts[b + 1]
        + 25 * counts[b + 2]
        + 125 * counts[b + 3]
        + 625 * counts[b + 4]
        + 3125 * counts[b + 5]
        + 15625 * counts[b + 6]
        + 78125 * counts[b + 7]
        + 390625 * counts[b + 8]
        for b in (0, 9, 18)
    )


def _regular(counts, n_sets: int = 0) -> list:
    """Every 4 sets + pair reading of ``counts`` (34 counts; ``n_sets`` follows from their number), in the order
    of ``_regular_by_search``: pair tile ascending, then the first-tile recursion (suit m first)."""
    return regular_from_keys(suit_keys(counts), counts)


def regular_from_keys(keys, counts) -> list:
    """``_regular`` with the suits' keys already known (``counts`` gives the sizes and the honours)."""
    parts: list[Sequence[tuple]] = []  # per suit: its (pair tile or None, sets) readings
    pair_at = -1
    for i, b in enumerate((0, 9, 18)):
        k = keys[i]
        if not k:
            parts.append(_EMPTY)
            continue
        if not (BITS[k >> 3] >> (k & 7)) & 1:
            return []
        n = sum(counts[b : b + 9])
        if n % 3 == 2:
            if pair_at >= 0:
                return []
            pair_at = i
        parts.append(splits(b, k))
    hon_sets = []
    hon_pair = None
    for t in range(27, 34):
        c = counts[t]
        if c == 3:
            hon_sets.append((PUNG_SET, t))
        elif c == 2:
            if pair_at >= 0:
                return []
            pair_at = 3
            hon_pair = t
        elif c:
            return []
    if pair_at < 0:
        return []
    hon = tuple(hon_sets)
    p0, p1, p2 = parts
    if len(p0) == 1 and len(p1) == 1 and len(p2) == 1:
        pair = hon_pair if pair_at == 3 else parts[pair_at][0][0]
        return [Candidate("regular", p0[0][1] + p1[0][1] + p2[0][1] + hon, pair)]
    out = []
    groups = [parts]
    if pair_at < 3 and len(parts[pair_at]) > 1:  # the pair's tile varies slowest (as in the search)
        groups = []
        run: list[tuple] = []  # the pair suit's readings of the last group (groups[-1][pair_at])
        for pair_split in parts[pair_at]:
            if groups and run[-1][0] == pair_split[0]:
                run.append(pair_split)
            else:
                run = [pair_split]
                g = list(parts)
                g[pair_at] = run
                groups.append(g)
    for g in groups:
        for (pa, sa), (pb, sb), (pc, sc) in product(*g):
            pair = hon_pair if pair_at == 3 else (pa, pb, pc)[pair_at]
            out.append(Candidate("regular", sa + sb + sc + hon, pair))
    return out


_EMPTY = ((None, ()),)


def _seven_pairs(counts: Sequence[int]) -> list:
    if sum(counts) == 14 and all(c in (0, 2, 4) for c in counts):
        return [Candidate("seven_pairs")]
    return []


def _thirteen_orphans(counts: Sequence[int]) -> list:
    if sum(counts) == 14 and all(counts[t] >= 1 for t in ORPHANS) and sum(counts[t] for t in ORPHANS) == 14:
        return [Candidate("thirteen_orphans")]
    return []


def _honors_knitted(counts: Sequence[int]) -> list:
    if sum(counts) != 14 or max(counts) > 1:
        return []
    suited = [t for t in range(27) if counts[t]]
    if not 7 <= len(suited) <= 9:
        return []
    for knit in KNITTED_STRAIGHTS:
        if set(suited) <= set(knit):
            return [Candidate("honors_knitted", knit=knit)]
    return []


def _knitted_straight(counts: Sequence[int], n_melds: int) -> list:
    if n_melds > 1:
        return []
    out = []
    for knit in KNITTED_STRAIGHTS:
        if all(counts[t] for t in knit):
            rest = list(counts)
            for t in knit:
                rest[t] -= 1
            for cand in _regular(rest):
                out.append(Candidate("knitted_straight", cand.sets, cand.pair, knit))
    return out


def _candidates(counts: tuple, n_melds: int) -> tuple:
    """Every reading of the standing tiles (counts incl. the winning tile) as a winning hand."""
    if sum(counts) != 14 - 3 * n_melds:
        return ()
    out = _regular(counts, 4 - n_melds)
    if n_melds == 0:
        out += _seven_pairs(counts) + _thirteen_orphans(counts) + _honors_knitted(counts)
    out += _knitted_straight(counts, n_melds)
    return tuple(out)


candidates = lru_cache(maxsize=1 << 15)(_candidates)


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


def regular_waits(counts, fifth_copy: bool = False) -> frozenset:
    """Tiles completing 4 sets + pair (with the melds already taken out) for a 3n+1 standing part.
    A tile whose four copies are all standing is no wait unless ``fifth_copy`` (the reference engine's way)."""
    if fifth_copy and 4 in counts:
        return _regular_waits_by_search(counts, True)
    return waits_from_keys(suit_keys(counts), counts)


def waits_from_keys(keys, counts) -> frozenset:
    """``regular_waits`` (no fifth copy) with the suits' keys already known: a tile is a wait if its suit,
    with it, splits into sets (and the pair, if no other suit holds it) while every other suit already does."""
    ok = [True] * 4
    pair = [False] * 4
    size = [0] * 4
    for i, b in enumerate((0, 9, 18)):
        k = keys[i]
        if k:
            n = size[i] = sum(counts[b : b + 9])
            pair[i] = n % 3 == 2
            ok[i] = n % 3 != 1 and (BITS[k >> 3] >> (k & 7)) & 1 == 1
    hon = counts[27:34]
    n = size[3] = sum(hon)
    if n:
        pair[3] = n % 3 == 2
        ok[3] = n % 3 != 1 and 1 not in hon and 4 not in hon and hon.count(2) <= 1
    bad = ok.count(False)
    if bad > 1:
        return frozenset()
    out = []
    n_pairs = sum(1 for i in range(4) if pair[i] and ok[i])
    for i in range(4):
        if bad and ok[i]:
            continue
        others = n_pairs - (pair[i] and ok[i])
        if others > 1 or (size[i] + 1) % 3 != (2 if others == 0 else 0):
            continue
        if i < 3:
            b = 9 * i
            k = keys[i]
            for r in range(9):
                if counts[b + r] < 4:
                    j = k + RANK[r]
                    if (BITS[j >> 3] >> (j & 7)) & 1:
                        out.append(b + r)
        else:
            for t in range(27, 34):
                c = counts[t] + 1
                if c in (2, 3):
                    h = list(hon)
                    h[t - 27] = c
                    if 1 not in h and 4 not in h and h.count(2) <= 1:
                        out.append(t)
    return frozenset(out)


def _regular_waits_by_search(counts, fifth_copy: bool = False) -> frozenset:
    """``regular_waits`` by a plain search (the reference for it, and its way with ``fifth_copy``)."""
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


def seven_pairs_waits(counts) -> frozenset:
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
