"""Chow family (顺子系): patterns made of chows, with the accounting principles applied once per reading.

``chow_combo`` scores the chows of a reading together, which is where 不拆移 / 不得相同 / 套算一次 /
就高不就低 bite: a four-chow pattern takes all four chows; a three-chow pattern may combine its fourth chow
once with one of its three; otherwise pairs of chows score, each chow used at most ``n - 1`` times in all.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

from .fantable import all_rows, fan


def _suit(t):
    return t // 9


def _rank(t):  # 0-based rank of the chow's lowest tile
    return t % 9


# ---- pattern tests on lowest tiles (sorted ascending) ----


def _four_chows(a, b, c, d):
    if _suit(a) == _suit(d):
        if (b - a == c - b == d - c) and b - a in (1, 2):
            return "four_pure_shifted_chows"
        if a == d:
            return "quadruple_chow"
    return None


def _three_chows(a, b, c):
    sa, sb, sc = _suit(a), _suit(b), _suit(c)
    ra, rb, rc = _rank(a), _rank(b), _rank(c)
    if len({sa, sb, sc}) == 3:
        rs = sorted((ra, rb, rc))
        if rs[1] - rs[0] == 1 and rs[2] - rs[1] == 1:
            return "mixed_shifted_chows"
        if ra == rb == rc:
            return "mixed_triple_chow"
        if rs == [0, 3, 6]:
            return "mixed_straight"
    elif sa == sb == sc:
        if (ra, rb, rc) == (0, 3, 6):
            return "pure_straight"
        if b - a == c - b and b - a in (1, 2):
            return "pure_shifted_chows"
        if a == b == c:
            return "pure_triple_chow"
    return None


def _two_chows(a, b):
    if _suit(a) != _suit(b):
        return "mixed_double_chow" if _rank(a) == _rank(b) else None
    if abs(a - b) == 3:
        return "short_straight"
    if {_rank(a), _rank(b)} == {0, 6}:
        return "two_terminal_chows"
    if a == b:
        return "pure_double_chow"
    return None


_PAIR_FANS = ("pure_double_chow", "mixed_double_chow", "short_straight", "two_terminal_chows")


def _extra(three, x):
    """The one 1-point fan the fourth chow may still make with one of the three (套算一次)."""
    found = {_two_chows(t, x) for t in three}
    for f in _PAIR_FANS:
        if f in found:
            return f
    return None


def _limit(found: list, max_cnt: int) -> dict:
    """Keep at most ``max_cnt`` pair fans, dropping repeats of the same fan first (不得相同)."""
    table = {f: found.count(f) for f in _PAIR_FANS}
    cnt = len(found)
    for limit in (1, 0):
        for f in reversed(_PAIR_FANS):
            while table[f] > limit and cnt > max_cnt:
                table[f] -= 1
                cnt -= 1
    return {f: n for f, n in table.items() if n}


@lru_cache(maxsize=1 << 14)
def chow_combo(chows: tuple, pair) -> dict:
    """Fan counts made by the chows of one reading (``chows`` sorted lowest tiles)."""
    n = len(chows)
    if n == 4:
        if pair is not None and pair < 27 and _rank(pair) == 4 and all(_rank(c) in (0, 6) for c in chows):
            suits = [_suit(c) for c in chows]
            ps = _suit(pair)
            if all(s == ps for s in suits) and sorted(_rank(c) for c in chows) == [0, 0, 6, 6]:
                return {"pure_terminal_chows": 1}
            if ps not in suits:
                others = {(s, r) for s, r in zip(suits, (_rank(c) for c in chows))}
                want = {(s, r) for s in {0, 1, 2} - {ps} for r in (0, 6)}
                if others == want:
                    return {"three_suited_terminal_chows": 1}
        f = _four_chows(*chows)
        if f:
            return {f: 1}
    if n >= 3:
        best = None
        for idx in combinations(range(n), 3):
            f = _three_chows(*(chows[i] for i in idx))
            if not f:
                continue
            out = {f: 1}
            if n == 4:
                rest = [chows[i] for i in range(4) if i not in idx][0]
                e = _extra([chows[i] for i in idx], rest)
                if e:
                    out[e] = 1
            score = sum(all_rows()[k].value for k in out)  # the rows' points (FAN_TABLE)
            if best is None or score > best[0]:
                best = (score, out)
        if best:
            return best[1]
    if n < 2:
        return {}
    pairs = list(combinations(range(n), 2))
    found = [_two_chows(chows[i], chows[j]) for i, j in pairs]
    max_cnt = n - 1
    if n == 4:
        for k in range(4):
            if all(f is None for (i, j), f in zip(pairs, found) if k in (i, j)):
                max_cnt -= 1
    found = [f for f in found if f]
    if n == 2:
        return {found[0]: 1} if found else {}
    return _limit(found, max_cnt) if max_cnt > 0 else {}


def _combo(c, fid):
    got = c.cache.get("chow_combo")  # once per reading: most chow fans ask
    if got is None:
        got = c.cache["chow_combo"] = chow_combo(c.chows, c.pair) if c.form == "regular" and c.chows else {}
    return got.get(fid, 0)


@fan(
    13,
    "pure_terminal_chows",
    "一色双龙会",
    "Pure Terminal Chows",
    64,
    (
        "all_chows",
        "seven_pairs",
        "full_flush",
        "pure_double_chow",
        "two_terminal_chows",
        "one_voided_suit",
        "no_honors",
    ),
    group="sets",
    needs={"chows": 4},
)
def pure_terminal_chows(c):
    """One suit: 123, 123, 789, 789 and a pair of 5."""
    return _combo(c, "pure_terminal_chows")


@fan(
    14,
    "quadruple_chow",
    "一色四同顺",
    "Quadruple Chow",
    48,
    ("pure_triple_chow", "pure_shifted_pungs", "pure_double_chow", "tile_hog", "seven_pairs"),
    group="sets",
    needs={"chows": 4},
)
def quadruple_chow(c):
    """Four identical chows."""
    return _combo(c, "quadruple_chow")


@fan(
    16,
    "four_pure_shifted_chows",
    "一色四步高",
    "Four Pure Shifted Chows",
    32,
    ("pure_shifted_chows",),
    group="sets",
    needs={"chows": 4},
)
def four_pure_shifted_chows(c):
    """Four chows of one suit, each one (or each two) higher than the last."""
    return _combo(c, "four_pure_shifted_chows")


@fan(
    23,
    "pure_triple_chow",
    "一色三同顺",
    "Pure Triple Chow",
    24,
    ("pure_shifted_pungs", "pure_double_chow"),
    group="sets",
    needs={"chows": 3},
)
def pure_triple_chow(c):
    """Three identical chows."""
    return _combo(c, "pure_triple_chow")


@fan(28, "pure_straight", "清龙", "Pure Straight", 16, ("short_straight",), group="sets", needs={"chows": 3})
def pure_straight(c):
    """123, 456, 789 of one suit."""
    return _combo(c, "pure_straight")


@fan(
    29,
    "three_suited_terminal_chows",
    "三色双龙会",
    "Three-Suited Terminal Chows",
    16,
    ("mixed_double_chow", "two_terminal_chows", "no_honors", "all_chows"),
    group="sets",
    needs={"chows": 4},
)
def three_suited_terminal_chows(c):
    """123 and 789 in two suits, a pair of 5 in the third."""
    return _combo(c, "three_suited_terminal_chows")


@fan(30, "pure_shifted_chows", "一色三步高", "Pure Shifted Chows", 16, group="sets", needs={"chows": 3})
def pure_shifted_chows(c):
    """Three chows of one suit, each one (or each two) higher than the last."""
    return _combo(c, "pure_shifted_chows")


@fan(39, "mixed_straight", "花龙", "Mixed Straight", 8, group="sets", needs={"chows": 3})
def mixed_straight(c):
    """123, 456, 789 in three different suits."""
    return _combo(c, "mixed_straight")


@fan(
    41,
    "mixed_triple_chow",
    "三色三同顺",
    "Mixed Triple Chow",
    8,
    ("mixed_double_chow",),
    group="sets",
    needs={"chows": 3},
)
def mixed_triple_chow(c):
    """The same chow in all three suits."""
    return _combo(c, "mixed_triple_chow")


@fan(50, "mixed_shifted_chows", "三色三步高", "Mixed Shifted Chows", 6, group="sets", needs={"chows": 3})
def mixed_shifted_chows(c):
    """Three chows in three suits, each one higher than the last."""
    return _combo(c, "mixed_shifted_chows")


@fan(
    64,
    "all_chows",
    "平和",
    "All Chows",
    2,
    ("no_honors",),
    group="sets",
    needs={"chows": 1},
    forms=("regular", "knitted_straight"),
)
def all_chows(c):
    """Four chows and a suited pair (edge/closed/single waits do not matter). With a knitted straight, the
    fourth set being a chow counts too, unless the profile says otherwise."""
    if c.pair is None or c.pair >= 27:
        return 0
    if c.form == "regular":
        return len(c.chows) == 4
    if c.form == "knitted_straight" and c.prof.knitted_all_chows:
        return len(c.chows) == 1
    return 0


@fan(70, "pure_double_chow", "一般高", "Pure Double Chow", 1, group="sets", needs={"chows": 2})
def pure_double_chow(c):
    """Two identical chows."""
    return _combo(c, "pure_double_chow")


@fan(71, "mixed_double_chow", "喜相逢", "Mixed Double Chow", 1, group="sets", needs={"chows": 2})
def mixed_double_chow(c):
    """The same chow in two suits."""
    return _combo(c, "mixed_double_chow")


@fan(72, "short_straight", "连六", "Short Straight", 1, group="sets", needs={"chows": 2})
def short_straight(c):
    """Two chows of one suit making six consecutive tiles."""
    return _combo(c, "short_straight")


@fan(73, "two_terminal_chows", "老少副", "Two Terminal Chows", 1, group="sets", needs={"chows": 2})
def two_terminal_chows(c):
    """123 and 789 of one suit."""
    return _combo(c, "two_terminal_chows")
