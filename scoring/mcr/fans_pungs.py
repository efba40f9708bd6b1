"""Pung and kong family (刻子系): patterns of pungs, concealed pungs, kongs, winds and dragons.

Like the chows, the pungs of a reading are scored together (``pung_combo``): a four-pung pattern takes
all four; a three-pung pattern lets the fourth pung pair once with one of the three; otherwise every two
pungs may score.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

from .fantable import all_rows, fan

WINDS = (27, 28, 29, 30)
DRAGONS = (31, 32, 33)


def _suited(t):
    return t < 27


def _three_pungs(a, b, c):
    if _suited(a) and _suited(b) and _suited(c):
        suits = {a // 9, b // 9, c // 9}
        ranks = sorted((a % 9, b % 9, c % 9))
        if len(suits) == 3:
            if ranks[1] - ranks[0] == 1 and ranks[2] - ranks[1] == 1:
                return "mixed_shifted_pungs"
            if ranks[0] == ranks[2]:
                return "triple_pung"
        elif len(suits) == 1 and b - a == 1 and c - b == 1:
            return "pure_shifted_pungs"
        return None
    if all(t in WINDS for t in (a, b, c)):
        return "big_three_winds"
    if (a, b, c) == DRAGONS:
        return "big_three_dragons"
    return None


def _two_pungs(a, b):
    if _suited(a) and _suited(b):
        return "double_pung" if a % 9 == b % 9 else None
    if a in DRAGONS and b in DRAGONS:
        return "two_dragons_pungs"
    return None


@lru_cache(maxsize=1 << 14)
def pung_combo(pungs: tuple) -> dict:
    """Fan counts made by the pungs/kongs of one reading (``pungs`` sorted tiles)."""
    n = len(pungs)
    if n == 4:
        a, b, c, d = pungs
        if _suited(a) and a // 9 == d // 9 and b == a + 1 and c == b + 1 and d == c + 1:
            return {"four_pure_shifted_pungs": 1}
        if pungs == WINDS:
            return {"big_four_winds": 1}
    if n >= 3:
        best = None
        for idx in combinations(range(n), 3):
            f = _three_pungs(*(pungs[i] for i in idx))
            if not f:
                continue
            out: dict = {f: 1}
            if n == 4:
                free = [pungs[i] for i in range(4) if i not in idx][0]
                for i in idx:
                    e = _two_pungs(pungs[i], free)
                    if e:
                        out[e] = 1
                        break
            if best is None or all_rows()[f].value > best[0]:  # the row's points (FAN_TABLE)
                best = (all_rows()[f].value, out)
        if best:
            return best[1]
    out = {}
    for a, b in combinations(pungs, 2):
        f = _two_pungs(a, b)
        if f:
            out[f] = out.get(f, 0) + 1
    return out


def _combo(c, fid):
    got = c.cache.get("pung_combo")  # once per reading: most pung fans ask
    if got is None:
        got = c.cache["pung_combo"] = pung_combo(c.pungs) if len(c.pungs) >= 2 else {}
    return got.get(fid, 0)


def _n_winds(c):
    return sum(1 for t in c.pungs if t in WINDS)


@fan(
    1,
    "big_four_winds",
    "大四喜",
    "Big Four Winds",
    88,
    ("prevalent_wind", "seat_wind", "big_three_winds", "all_pungs", "pung_terminals_honors", "one_voided_suit"),
    group="sets",
    needs={"pungs": 4},
)
def big_four_winds(c):
    """Pungs of all four winds."""
    return _combo(c, "big_four_winds")


@fan(
    2,
    "big_three_dragons",
    "大三元",
    "Big Three Dragons",
    88,
    ("dragon_pung", "two_dragons_pungs"),
    group="sets",
    needs={"pungs": 3},
)
def big_three_dragons(c):
    """Pungs of all three dragons."""
    return _combo(c, "big_three_dragons")


@fan(
    5,
    "four_kongs",
    "四杠",
    "Four Kongs",
    88,
    (
        "all_pungs",
        "three_kongs",
        "two_concealed_kongs",
        "two_melded_kongs",
        "concealed_kong",
        "melded_kong",
        "single_wait",
    ),
    group="sets",
    needs={"kongs": 4},
)
def four_kongs(c):
    return c.n_kongs == 4


@fan(
    9,
    "little_four_winds",
    "小四喜",
    "Little Four Winds",
    64,
    ("big_three_winds", "pung_terminals_honors", "one_voided_suit"),
    group="sets",
    needs={"pungs": 3},
)
def little_four_winds(c):
    """Pungs of three winds and a pair of the fourth."""
    return c.pair in WINDS and _n_winds(c) == 3


@fan(
    10,
    "little_three_dragons",
    "小三元",
    "Little Three Dragons",
    64,
    ("dragon_pung", "two_dragons_pungs"),
    group="sets",
    needs={"pungs": 2},
)
def little_three_dragons(c):
    """Pungs of two dragons and a pair of the third."""
    return c.pair in DRAGONS and sum(1 for t in c.pungs if t in DRAGONS) == 2


@fan(
    12,
    "four_concealed_pungs",
    "四暗刻",
    "Four Concealed Pungs",
    64,
    ("concealed_hand", "all_pungs"),
    group="sets",
    needs={"concealed_pungs": 4},
)
def four_concealed_pungs(c):
    return c.n_concealed_pungs == 4


@fan(
    15,
    "four_pure_shifted_pungs",
    "一色四节高",
    "Four Pure Shifted Pungs",
    48,
    ("pure_triple_chow", "pure_shifted_pungs", "pure_double_chow", "all_pungs"),
    group="sets",
    needs={"pungs": 4},
)
def four_pure_shifted_pungs(c):
    """Four pungs of one suit, each one higher than the last."""
    return _combo(c, "four_pure_shifted_pungs")


@fan(
    17,
    "three_kongs",
    "三杠",
    "Three Kongs",
    32,
    ("two_concealed_kongs", "two_melded_kongs", "concealed_kong", "melded_kong"),
    group="sets",
    needs={"kongs": 3},
)
def three_kongs(c):
    return c.n_kongs == 3


@fan(
    24,
    "pure_shifted_pungs",
    "一色三节高",
    "Pure Shifted Pungs",
    24,
    ("pure_triple_chow", "pure_double_chow"),
    group="sets",
    needs={"pungs": 3},
)
def pure_shifted_pungs(c):
    """Three pungs of one suit, each one higher than the last."""
    return _combo(c, "pure_shifted_pungs")


@fan(32, "triple_pung", "三同刻", "Triple Pung", 16, ("double_pung",), group="sets", needs={"pungs": 3})
def triple_pung(c):
    """The same number pung in all three suits."""
    return _combo(c, "triple_pung")


@fan(
    33,
    "three_concealed_pungs",
    "三暗刻",
    "Three Concealed Pungs",
    16,
    ("two_concealed_pungs",),
    group="sets",
    needs={"concealed_pungs": 3},
)
def three_concealed_pungs(c):
    return c.n_concealed_pungs == 3


@fan(38, "big_three_winds", "三风刻", "Big Three Winds", 12, group="sets", needs={"pungs": 3})
def big_three_winds(c):
    """Pungs of three winds. (Its three 幺九刻 are never counted: see ``pung_terminals_honors``; 圈风刻 and
    门风刻 may still be added, as the table says.)"""
    return _combo(c, "big_three_winds")


@fan(
    42,
    "mixed_shifted_pungs",
    "三色三节高",
    "Mixed Shifted Pungs",
    8,
    ("mixed_double_chow",),
    group="sets",
    needs={"pungs": 3},
)
def mixed_shifted_pungs(c):
    """Three pungs in three suits, each one higher than the last."""
    return _combo(c, "mixed_shifted_pungs")


@fan(48, "all_pungs", "碰碰和", "All Pungs", 6, group="sets", needs={"pungs": 4}, forms=("regular",))
def all_pungs(c):
    return c.form == "regular" and len(c.pungs) == 4


@fan(
    53,
    "two_concealed_kongs",
    "双暗杠",
    "Two Concealed Kongs",
    6,
    ("concealed_kong", "two_concealed_pungs"),
    group="sets",
    needs={"kongs": 2},
)
def two_concealed_kongs(c):
    """Not a fan beside a third concealed pung where a concealed kong is a concealed pung and a melded kong
    (Profile.kong_parts): 双明杠 counts their melded parts instead."""
    return c.n_kongs == 2 and c.kongs_concealed == 2 and not _kong_parts(c)


def _kong_parts(c) -> bool:
    """Two concealed kongs scored by their parts (Profile.kong_parts): beside a third concealed pung."""
    return c.prof.kong_parts and c.n_kongs == 2 and c.kongs_concealed == 2 and c.n_concealed_pungs > 2


@fan(54, "two_dragons_pungs", "双箭刻", "Two Dragons Pungs", 6, ("dragon_pung",), group="sets", needs={"pungs": 2})
def two_dragons_pungs(c):
    return _combo(c, "two_dragons_pungs")


@fan(
    55,
    "concealed_kong_and_melded_kong",
    "阴阳杠",
    "Concealed Kong and Melded Kong",
    5,
    ("melded_kong", "concealed_kong"),
    group="sets",
    needs={"kongs": 2},
)
def concealed_kong_and_melded_kong(c):
    """Not a fan where concealed kongs add 暗杠 (mcr-wmo-2006.txt 3.8.1 57: 双明杠 4 + 暗杠 2 = 6)."""
    return c.n_kongs == 2 and c.kongs_concealed == 1 and not c.prof.concealed_kongs_add


@fan(58, "two_melded_kongs", "双明杠", "Two Melded Kongs", 4, ("melded_kong",), group="sets", needs={"kongs": 2})
def two_melded_kongs(c):
    """Two melded kongs; one melded and one concealed too where concealed kongs add 暗杠 (2006 3.8.1 57); two
    concealed kongs scored by their parts (_kong_parts) too."""
    return (
        c.n_kongs == 2
        and (c.kongs_exposed == 2 or c.prof.concealed_kongs_add and c.kongs_exposed == 1)
        or _kong_parts(c)
    )


@fan(60, "dragon_pung", "箭刻", "Dragon Pung", 2, group="sets", needs={"pungs": 1})
def dragon_pung(c):
    return sum(1 for t in c.pungs if t in DRAGONS)


@fan(61, "prevalent_wind", "圈风刻", "Prevalent Wind", 2, group="winds", needs={"pungs": 1})
def prevalent_wind(c):
    return c.sit.prevalent_wind in c.pungs


@fan(62, "seat_wind", "门风刻", "Seat Wind", 2, group="winds", needs={"pungs": 1})
def seat_wind(c):
    return c.sit.seat_wind in c.pungs


@fan(66, "double_pung", "双同刻", "Double Pung", 2, group="sets", needs={"pungs": 2})
def double_pung(c):
    return _combo(c, "double_pung")


@fan(67, "two_concealed_pungs", "双暗刻", "Two Concealed Pungs", 2, group="sets", needs={"concealed_pungs": 2})
def two_concealed_pungs(c):
    return c.n_concealed_pungs == 2


@fan(68, "concealed_kong", "暗杠", "Concealed Kong", 2, group="sets", needs={"kongs": 1})
def concealed_kong(c):
    """One concealed kong; with 暗杠加计 (mcr-wmo-2006.txt 3.8.1 5, 17, 57) each concealed kong, beside the
    fan of the kong count (双暗杠 still does not count it)."""
    if c.prof.concealed_kongs_add:
        return c.kongs_concealed
    return c.n_kongs == 1 and c.kongs_concealed == 1


@fan(74, "pung_terminals_honors", "幺九刻", "Pung of Terminals or Honors", 1, group="winds", needs={"pungs": 1})
def pung_terminals_honors(c):
    """Pungs of terminals or winds not already scored as a wind fan (不重复): a pung of the seat or
    prevalent wind is scored as 门风刻/圈风刻, and three or four wind pungs as 三风刻/小四喜/大四喜.
    Dragon pungs are 箭刻."""
    n = sum(1 for t in c.pungs if t < 27 and t % 9 in (0, 8))
    winds = [t for t in c.pungs if t in WINDS]
    if len(winds) <= 2:
        n += sum(1 for t in winds if t != c.sit.seat_wind and t != c.sit.prevalent_wind)
    return n


@fan(75, "melded_kong", "明杠", "Melded Kong", 1, group="sets", needs={"kongs": 1})
def melded_kong(c):
    return c.n_kongs == 1 and c.kongs_exposed == 1


# ---- competition variant house fan ----


@fan(
    109,
    "all_odd_pungs",
    "全单刻",
    "All Odd Pungs",
    24,
    ("all_pungs", "no_honors"),
    house=True,
    group="sets",
    needs={"pungs": 4},
    forms=("regular",),
)
def all_odd_pungs(c):
    """Four pungs and a pair, all of 1, 3, 5, 7 or 9."""
    return (
        c.form == "regular"
        and len(c.pungs) == 4
        and all(t < 27 and t % 9 in (0, 2, 4, 6, 8) for t in c.pungs + (c.pair,))
    )
