"""Suit, terminal, honour and number-range family (牌种限制, plus 四归一).

Tile-trait fans (断幺 推不倒 绿一色 字一色 清幺九 混幺九) and number ranges (全大 全中 全小 大于五 小于五)
apply to 4 sets + pair and to seven pairs; the suit fans (无字 缺一门 混一色 清一色 五门齐) to every shape
(the special shapes' 不计 lists remove what they imply). Set-based fans (全带幺 全带五 全双刻) need sets.
"""

from __future__ import annotations

from ..tiles import REVERSIBLE
from .fantable import fan

GREEN = frozenset((19, 20, 21, 23, 25, 32))  # 23468s + Green dragon
TERMINALS = frozenset((0, 8, 9, 17, 18, 26))
HONORS = frozenset(range(27, 34))
WINDS = frozenset(range(27, 31))
DRAGONS = frozenset(range(31, 34))
_TRAIT_FORMS = ("regular", "seven_pairs")


def _form_of_sets(c, fid: str) -> bool:
    """Is the reading's form one the fan ``fid`` may score on: a hand of sets, or 七对 where the profile does not
    take the fan off it (Profile.pungs_not_pairs: a fan defined by pungs and a pair)?"""
    return c.form == "regular" or c.form == "seven_pairs" and fid not in c.prof.pungs_not_pairs


def _suits(c):
    """The suits present (computed once per context: four predicates ask)."""
    s = c.cache.get("suits")
    if s is None:
        s = c.cache["suits"] = {t // 9 for t in c.kinds if t < 27}
    return s


def _has_honor(c):
    return not c.kinds.isdisjoint(HONORS)


def _ranks(c):
    """Set of ranks 1..9 if every tile is suited, else None."""
    if _has_honor(c):
        return None
    return {t % 9 + 1 for t in c.kinds}


@fan(3, "all_green", "绿一色", "All Green", 88, ("half_flush",), group="tiles", forms=("regular", "seven_pairs"))
def all_green(c):
    """Only 23468 bamboo and Green dragons (without a Green dragon it is also 清一色)."""
    return _form_of_sets(c, "all_green") and c.kinds <= GREEN


@fan(
    8,
    "all_terminals",
    "清幺九",
    "All Terminals",
    64,
    ("all_pungs", "no_honors", "all_terminals_and_honors", "outside_hand", "pung_terminals_honors"),
    group="tiles",
    forms=("regular", "seven_pairs"),
    implied=("all_odd_pungs",),
)
def all_terminals(c):
    return _form_of_sets(c, "all_terminals") and c.kinds <= TERMINALS


@fan(
    11,
    "all_honors",
    "字一色",
    "All Honors",
    64,
    ("all_pungs", "all_terminals_and_honors", "outside_hand", "pung_terminals_honors", "one_voided_suit"),
    group="tiles",
    forms=("regular", "seven_pairs"),
)
def all_honors(c):
    return _form_of_sets(c, "all_honors") and c.kinds <= HONORS


@fan(
    18,
    "all_terminals_and_honors",
    "混幺九",
    "All Terminals and Honors",
    32,
    ("all_pungs", "outside_hand", "pung_terminals_honors"),
    group="tiles",
    forms=("regular", "seven_pairs"),
)
def all_terminals_and_honors(c):
    """Only terminals and honours, with both present (all-one-kind is 清幺九 or 字一色)."""
    return (
        _form_of_sets(c, "all_terminals_and_honors")
        and c.kinds <= (TERMINALS | HONORS)
        and not c.kinds <= TERMINALS
        and not c.kinds <= HONORS
    )


@fan(
    21,
    "all_even_pungs",
    "全双刻",
    "All Even Pungs",
    24,
    ("all_pungs", "all_simples", "no_honors"),
    group="sets",
    needs={"pungs": 4},
    forms=("regular",),
)
def all_even_pungs(c):
    """Four pungs and a pair, all of 2, 4, 6 or 8."""
    return (
        c.form == "regular" and len(c.pungs) == 4 and all(t < 27 and t % 9 in (1, 3, 5, 7) for t in c.pungs + (c.pair,))
    )


@fan(22, "full_flush", "清一色", "Full Flush", 24, ("no_honors", "one_voided_suit"), group="tiles")
def full_flush(c):
    return len(_suits(c)) == 1 and not _has_honor(c)


def _range_fan(c):
    """The number-range fan of the tiles, if any (computed once per context: five predicates ask)."""
    if c.form not in _TRAIT_FORMS:
        return None
    got = c.cache.get("range", _UNSET)
    if got is _UNSET:
        got = c.cache["range"] = _range_kind(c)
    return got


_UNSET = object()


def _range_kind(c):
    r = _ranks(c)
    if r is None:
        return None
    if r <= {1, 2, 3, 4}:
        return "lower_four" if 4 in r else "lower_tiles"
    if r <= {6, 7, 8, 9}:
        return "upper_four" if 6 in r else "upper_tiles"
    if r <= {4, 5, 6}:
        return "middle_tiles"
    return None


@fan(
    25,
    "upper_tiles",
    "全大",
    "Upper Tiles",
    24,
    ("no_honors", "upper_four"),
    group="tiles",
    forms=("regular", "seven_pairs"),
)
def upper_tiles(c):
    """Only 7, 8 and 9."""
    return _range_fan(c) == "upper_tiles"


@fan(
    26,
    "middle_tiles",
    "全中",
    "Middle Tiles",
    24,
    ("no_honors", "all_simples"),
    group="tiles",
    forms=("regular", "seven_pairs"),
)
def middle_tiles(c):
    """Only 4, 5 and 6."""
    return _range_fan(c) == "middle_tiles"


@fan(
    27,
    "lower_tiles",
    "全小",
    "Lower Tiles",
    24,
    ("no_honors", "lower_four"),
    group="tiles",
    forms=("regular", "seven_pairs"),
)
def lower_tiles(c):
    """Only 1, 2 and 3."""
    return _range_fan(c) == "lower_tiles"


@fan(31, "all_five", "全带五", "All Five", 16, ("all_simples", "no_honors"), group="sets", forms=("regular",))
def all_five(c):
    """Every set and the pair contain a 5."""
    if c.form != "regular":
        return 0
    for k, t in c.all_sets_and_pair():
        if t >= 27:
            return 0
        r = t % 9
        if k == 0:
            if r not in (2, 3, 4):
                return 0
        elif r != 4:
            return 0
    return 1


@fan(36, "upper_four", "大于五", "Upper Four", 12, ("no_honors",), group="tiles", forms=("regular", "seven_pairs"))
def upper_four(c):
    """Only 6 to 9 (with a 6)."""
    return _range_fan(c) == "upper_four"


@fan(37, "lower_four", "小于五", "Lower Four", 12, ("no_honors",), group="tiles", forms=("regular", "seven_pairs"))
def lower_four(c):
    """Only 1 to 4 (with a 4)."""
    return _range_fan(c) == "lower_four"


@fan(
    40,
    "reversible_tiles",
    "推不倒",
    "Reversible Tiles",
    8,
    ("one_voided_suit",),
    group="tiles",
    forms=("regular", "seven_pairs"),
)
def reversible_tiles(c):
    """Only tiles that look the same upside down: 1234589 dots, 245689 bamboo, White dragon."""
    return c.form in _TRAIT_FORMS and c.kinds <= REVERSIBLE


@fan(49, "half_flush", "混一色", "Half Flush", 6, group="tiles")
def half_flush(c):
    return len(_suits(c)) == 1 and _has_honor(c)


@fan(51, "all_types", "五门齐", "All Types", 6, group="tiles")
def all_types(c):
    """All three suits, a wind and a dragon."""
    return len(_suits(c)) == 3 and not c.kinds.isdisjoint(WINDS) and not c.kinds.isdisjoint(DRAGONS)


@fan(56, "outside_hand", "全带幺", "Outside Hand", 4, group="sets", forms=("regular",))
def outside_hand(c):
    """Every set and the pair contain a terminal or an honour."""
    if c.form != "regular":
        return 0
    for k, t in c.all_sets_and_pair():
        if t >= 27:
            continue
        r = t % 9
        if k == 0:
            if r not in (0, 6):
                return 0
        elif r not in (0, 8):
            return 0
    return 1


@fan(65, "tile_hog", "四归一", "Tile Hog", 2, group="tiles")
def tile_hog(c):
    """Four copies of a tile used without declaring a kong (once per such tile)."""
    if c.form == "knitted_straight" and not c.prof.knitted_tile_hog:
        return 0
    return c.counts.count(4) - c.n_kongs


@fan(69, "all_simples", "断幺", "All Simples", 2, ("no_honors",), group="tiles", forms=("regular", "seven_pairs"))
def all_simples(c):
    return c.form in _TRAIT_FORMS and c.kinds.isdisjoint(TERMINALS | HONORS)


@fan(76, "one_voided_suit", "缺一门", "One Voided Suit", 1, group="tiles")
def one_voided_suit(c):
    """Exactly one of the three suits missing."""
    return len(_suits(c)) == 2


@fan(77, "no_honors", "无字", "No Honors", 1, group="tiles")
def no_honors(c):
    return not _has_honor(c)
