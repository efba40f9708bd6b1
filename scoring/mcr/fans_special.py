"""Special shapes family (特定结构 and the special winning shapes), with the competition variant's house
fans for special seven-pairs and the 全靠 straight."""

from __future__ import annotations

from .fantable import fan

GREEN = frozenset((19, 20, 21, 23, 25, 32))
TERMINALS = frozenset((0, 8, 9, 17, 18, 26))
HONORS = frozenset(range(27, 34))
_NINE_GATES = (3, 1, 1, 1, 1, 1, 1, 1, 3)


def _shifted_pairs(c):
    if c.form != "seven_pairs":
        return False
    ts = sorted(c.kinds)
    return len(ts) == 7 and ts[0] < 27 and ts[6] - ts[0] == 6 and ts[0] // 9 == ts[6] // 9


@fan(
    4,
    "nine_gates",
    "九莲宝灯",
    "Nine Gates",
    88,
    ("full_flush", "fully_concealed_hand", "concealed_hand", "one_voided_suit", "no_honors"),
    group="waits",
    forms=("regular",),
)
def nine_gates(c):
    """Concealed 1112345678999 of one suit waiting on any tile of that suit. Competition: only when the
    winning tile was set apart."""
    if c.form != "regular" or c.n_melds or (c.prof.require_apart and not c.sit.winning_tile_apart):
        return 0
    if c.flags["heavenly"]:
        return 0
    s = c.standing
    for base in (0, 9, 18):
        if tuple(s[base : base + 9]) == _NINE_GATES:
            return 1
    return 0


@fan(
    6,
    "seven_shifted_pairs",
    "连七对",
    "Seven Shifted Pairs",
    88,
    (
        "full_flush",
        "fully_concealed_hand",
        "single_wait",
        "seven_pairs",
        "concealed_hand",
        "one_voided_suit",
        "no_honors",
        "pure_double_chow",
        "all_chows",
        "short_straight",
    ),
    group="tiles",
    forms=("seven_pairs",),
)
def seven_shifted_pairs(c):
    """Seven pairs of one suit in sequence."""
    return _shifted_pairs(c)


@fan(
    7,
    "thirteen_orphans",
    "十三幺",
    "Thirteen Orphans",
    88,
    ("all_types", "fully_concealed_hand", "single_wait", "outside_hand", "concealed_hand"),
    group="tiles",
    forms=("thirteen_orphans",),
)
def thirteen_orphans(c):
    return c.form == "thirteen_orphans"


@fan(
    19,
    "seven_pairs",
    "七对",
    "Seven Pairs",
    24,
    ("fully_concealed_hand", "single_wait", "concealed_hand"),
    group="tiles",
    forms=("seven_pairs",),
)
def seven_pairs(c):
    return c.form == "seven_pairs" and not _shifted_pairs(c)


@fan(
    20,
    "greater_honors_knitted",
    "七星不靠",
    "Greater Honors and Knitted Tiles",
    24,
    ("all_types", "fully_concealed_hand", "lesser_honors_knitted", "single_wait", "concealed_hand"),
    group="tiles",
    forms=("honors_knitted",),
)
def greater_honors_knitted(c):
    """All seven honours plus seven tiles of one knitted straight, all single."""
    return c.form == "honors_knitted" and c.kinds >= HONORS


@fan(
    34,
    "lesser_honors_knitted",
    "全不靠",
    "Lesser Honors and Knitted Tiles",
    12,
    ("all_types", "fully_concealed_hand", "single_wait", "concealed_hand"),
    group="tiles",
    forms=("honors_knitted",),
)
def lesser_honors_knitted(c):
    """Fourteen single tiles from one knitted straight and the seven honours."""
    return c.form == "honors_knitted" and not c.kinds >= HONORS


@fan(
    35,
    "knitted_straight",
    "组合龙",
    "Knitted Straight",
    12,
    group="tiles",
    forms=("knitted_straight", "honors_knitted"),
)
def knitted_straight(c):
    """147, 258, 369 in three different suits (in a 全不靠 too when all nine are there)."""
    if c.form == "knitted_straight":
        return 1
    return c.form == "honors_knitted" and sum(1 for t in c.kinds if t < 27) == 9


# ---- competition variant house fans (competition-variant.txt 新增番种) ----


def _pairs_of(c, kinds):
    return c.form == "seven_pairs" and c.kinds <= kinds


@fan(
    102,
    "all_knitted_full",
    "全靠",
    "Pure Straight with Middle Chow",
    88,
    ("full_flush", "tile_hog", "all_chows"),
    house=True,
    group="sets",
    needs={"chows": 4},
    forms=("regular",),
    implied=("pure_straight", "pure_double_chow", "no_honors"),
)
def all_knitted_full(c):
    """One suit: 1-9 plus 456, with a pair of 5 (123 456 789 456 55)."""
    if c.form != "regular" or c.pair is None or c.pair >= 27 or c.pair % 9 != 4:
        return 0
    s = c.pair // 9 * 9
    return c.chows == (s, s + 3, s + 3, s + 6)


@fan(
    103,
    "green_seven_pairs",
    "绿七对",
    "All Green Seven Pairs",
    88,
    ("tile_hog",),
    house=True,
    group="tiles",
    forms=("seven_pairs",),
    implied=("all_green", "seven_pairs"),
)
def green_seven_pairs(c):
    """Seven pairs of 23468 bamboo and Green dragons."""
    return _pairs_of(c, GREEN)


@fan(
    104,
    "honors_seven_pairs_full",
    "字全七对",
    "Seven Pairs of All Honours",
    88,
    ("outside_hand",),
    house=True,
    group="tiles",
    forms=("seven_pairs",),
    implied=("all_honors", "seven_pairs"),
)
def honors_seven_pairs_full(c):
    """A pair of each of the seven honours."""
    return c.form == "seven_pairs" and c.kinds == HONORS


@fan(
    106,
    "honors_seven_pairs",
    "字七对",
    "Honours Seven Pairs",
    64,
    ("outside_hand", "tile_hog"),
    house=True,
    group="tiles",
    forms=("seven_pairs",),
    implied=("all_honors", "seven_pairs"),
)
def honors_seven_pairs(c):
    """Seven pairs of honours, not all seven kinds (a 4-of-a-kind is two pairs)."""
    return _pairs_of(c, HONORS) and c.kinds != HONORS


@fan(
    107,
    "terminals_seven_pairs",
    "清幺九七对",
    "Terminals Seven Pairs",
    64,
    ("outside_hand", "tile_hog", "no_honors"),
    house=True,
    group="tiles",
    forms=("seven_pairs",),
    implied=("all_terminals", "seven_pairs"),
)
def terminals_seven_pairs(c):
    """Seven pairs of 1s and 9s."""
    return _pairs_of(c, TERMINALS)
