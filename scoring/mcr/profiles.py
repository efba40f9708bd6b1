"""Rule profiles: named sets of differences from the 1998 table, chosen by name (an unknown name is an error).

The fan table (``FAN_TABLE``) carries the 不计 lists exactly as printed in mcr-1998-table.txt. A profile may
add exclusions (``excludes_add``) and switch readings; every difference is listed in ``differences`` with
its reason, and ``scoring/mcr/README.md`` documents them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from mjtable.errors import UnknownProfile  # noqa: F401  (raised by get_profile)


@dataclass(frozen=True, eq=False)  # hashed by identity (used as a cache key)
class Profile:
    name: str
    description: str
    waits_by_shape: bool = False  # 边坎钓 by the winning tile's place only (else: unique wait needed)
    require_apart: bool = False  # 边坎钓/和绝张/九莲宝灯 only when Situation.winning_tile_apart
    knitted_all_chows: bool = True  # 组合龙 + chow + suited pair scores 平和
    knitted_tile_hog: bool = True  # 组合龙 hands may score 四归一
    fifth_copy_waits: bool = False  # count a tile whose 4 copies are all standing as a wait (reference engine)
    extra_fans: bool = False  # the competition variant's house fans (天和 地和 人和 全靠 ...)
    excludes_add: dict = field(default_factory=dict)  # fan id -> extra 不计 entries
    excludes_remove: dict = field(default_factory=dict)  # fan id -> 不计 entries of the table that do not apply
    deduct_implied_pungs: bool = False  # 字一色/混幺九: honour-pung fans count 1 less per pung (implied 幺九刻)
    house_non_repetition: bool = False  # house fans also exclude the fans they imply (FanDef.implied; 不重复原则)
    concealed_kongs_add: bool = (
        False  # 暗杠加计: each concealed kong also scores 暗杠 beside 三杠/四杠/双明杠; no 阴阳杠
    )
    kong_parts: bool = False  # 核分实例 (6): two concealed kongs beside a third concealed pung are 暗刻 + 双明杠
    pungs_not_pairs: tuple = ()  # fans defined by pungs and a pair (刻子、将) that a 七对 does not score (PUNG_FANS)
    differences: tuple = ()  # (key, description) — what differs from the 1998 table and why


# What the reference engine (pymahjonggb, "通行计法") counts differently from the printed 1998 不计 lists.
_COMMON_PRACTICE = {
    "nine_gates": (("pung_terminals_honors", 1),),
    "all_terminals": ("double_pung",),
}
_COMMON_PRACTICE_NOTES = (
    (
        "nine_gates_no_terminal_pung",
        "九莲宝灯 also does not count one 幺九刻: the 111/999 of the pattern is part "
        "of the fan (不重复). The 1998 list does not name it; the reference engine and common practice do.",
    ),
    (
        "all_terminals_no_double_pung",
        "清幺九 also does not count 双同刻: with only 1s and 9s two same-number "
        "pungs are implied by the fan (通行计法, as the reference engine).",
    ),
)
# Not taken from the reference engine: it scores a self-drawn 四暗刻 with 自摸 instead of 不求人. Every text gives
# 不求人 (mcr-1998-table.txt 12 四暗刻 不计门前清、碰碰和 only; mcr-wmo-2006.txt 3.8.1 12 自摸加计不求人;
# competition-variant.txt 行牌 15), so every profile follows them (tests/test_mcr_differential.py names it).

DEFAULT = Profile(
    name="default",
    description="Chinese Official (MCR) as commonly played and as the reference engine pymahjonggb scores it: "
    "the 1998 table with the two common-practice exclusions below; 边张/坎张/单钓将 only for a "
    "unique wait; a self-drawn 四暗刻 counts 不求人 as every text says (the reference engine: 自摸).",
    excludes_add=_COMMON_PRACTICE,
    differences=_COMMON_PRACTICE_NOTES
    + (
        (
            "unique_wait",
            "边张/坎张/单钓将 need a hand waiting on exactly one tile (1998 examples: '12345 和 3 不算边张').",
        ),
    ),
)

# the fans a profile may take off 七对 (pungs_not_pairs), in the order of the compiled core's bit mask
PUNG_FANS = ("all_green", "all_terminals", "all_honors", "all_terminals_and_honors")
_PUNGS_NOT_PAIRS = (
    "pungs_not_pairs",
    "字一色, 清幺九 and 混幺九 (and in the 1998 table 绿一色) are defined as hands of pungs (刻子) and a pair, so a "
    "七对 of their tiles scores 七对 and not them (mcr-1998-table.txt 3, 8, 11, 18; mcr-wmo-2006.txt 3.8.1 8, 11, "
    "18, whose 3 绿一色 names no sets). Common practice and the reference engine count them on 七对 too.",
)

MCR1998 = Profile(
    name="mcr1998",
    description="The 1998 national table read literally: only the 不计 lists as printed (no common-practice "
    "additions); 边张/坎张/单钓将 for a unique wait; 字一色, 清幺九, 混幺九 and 绿一色 not on 七对.",
    pungs_not_pairs=PUNG_FANS,
    differences=(("unique_wait", DEFAULT.differences[-1][1]), _PUNGS_NOT_PAIRS),
)

_CONCEALED_ALWAYS = (
    "nine_gates",
    "seven_shifted_pairs",
    "thirteen_orphans",
    "four_concealed_pungs",
    "seven_pairs",
    "greater_honors_knitted",
    "lesser_honors_knitted",
)

COMPETITION = Profile(
    name="competition",
    description="The competition variant (competition-variant.txt): 边坎钓 by shape, the winning tile must be "
    "set apart, 门前清/不求人 by their definitions for every shape, 组合龙 without 平和/四归一, "
    "implied 幺九刻 taken off honour-pung fans in 字一色/混幺九, and nine house fans.",
    waits_by_shape=True,
    require_apart=True,
    knitted_all_chows=False,
    knitted_tile_hog=False,
    extra_fans=True,
    deduct_implied_pungs=True,
    house_non_repetition=True,
    kong_parts=True,
    excludes_add=_COMMON_PRACTICE,
    excludes_remove={
        **{k: ("concealed_hand",) for k in _CONCEALED_ALWAYS},
        "nine_gates": ("concealed_hand", "fully_concealed_hand"),
    },
    differences=_COMMON_PRACTICE_NOTES
    + (
        (
            "waits_by_shape",
            "边张/坎张/单钓将 by the winning tile's place, however many tiles were waited on "
            "('1113 和 3 为钓，和 2 为坎'; '67889 和 7 非边即坎'); 组合龙 won on its 4/5/6 is 坎张 (核分实例 1).",
        ),
        (
            "winning_tile_apart",
            "No 边张/坎张/单钓将, 和绝张 or 九莲宝灯 when the winning tile was not set apart "
            "(Situation.winning_tile_apart=False; 行牌 16).",
        ),
        (
            "concealed_by_definition",
            "门前清 counts for every shape won concealed on a discard, 九莲宝灯 连七对 "
            "十三幺 四暗刻 七对 七星不靠 全不靠 included (only 地和 implies it); 不求人 counts for every 4-sets "
            "shape won concealed and self-drawn (九莲宝灯, 四暗刻 too); the pair-less shapes get 自摸 (行牌 15).",
        ),
        ("knitted_no_all_chows_hog", "组合龙 is not made of chows: no 平和 and no 四归一 with it (核分实例 5)."),
        (
            "kong_parts",
            "A concealed kong is a concealed pung and a melded kong: two concealed kongs beside a third or fourth "
            "concealed pung score 三暗刻/四暗刻 and 双明杠, not 双暗杠 too (核分实例 6: 先计暗刻分（暗杠暗部），后计"
            "明杠分（暗杠明部）); alone they score 双暗杠 6, the same as 双暗刻 2 + 双明杠 4.",
        ),
        (
            "implied_terminal_pungs",
            "In 字一色 and 混幺九 each pung scored as 箭刻/双箭刻/三风刻/圈风刻/门风刻 "
            "counts 1 less (its 幺九刻 is already in the fan): 箭刻 +1, 双箭刻 +4, 圈风刻 or 门风刻 +1, both on one "
            "pung +3 (核分实例 3). Shown as the row 'implied_terminal_pung' (-1 each).",
        ),
        (
            "house_fans",
            "Extra fans: 天和 88 (不计自摸), 全靠 88 (不计清一色/四归一/平和), 绿七对 88 (不计四归一), "
            "字全七对 88 (不计全带幺), 地和 64 (不计门前清), 字七对 64 (不计全带幺/四归一), 清幺九七对 64 "
            "(不计全带幺/四归一/无字), 人和 48, 全单刻 24 (不计碰碰和/无字), with 'single 四归一' read as 四归一. "
            "天和/地和/人和 come from Situation.heavenly_win/earthly_win/human_win.",
        ),
        (
            "house_non_repetition",
            "The house fans also do not count the fans they necessarily imply (不重复原则, "
            "mcr-wmo-2006.txt 3.9.1 5(1)): 绿七对 not 绿一色/七对, 字全七对 and 字七对 not 字一色/七对, "
            "清幺九七对 not 清幺九/七对, 全靠 not 清龙/一般高/无字; and 清幺九 not the house fan 全单刻 "
            "(its pungs and pair are all 1 or 9). 天和 and 人和 keep 不求人 and 门前清, which 行牌 15 "
            "counts for every shape that meets them (无一例外; 门前清 is implied by 地和 alone). The "
            "variant's printed lists do not name them: the profile competition_literal keeps the printed "
            "lists alone.",
        ),
    ),
)

COMPETITION_LITERAL = replace(
    COMPETITION,
    name="competition_literal",
    house_non_repetition=False,
    description="The competition variant with the house fans' printed 不计 lists alone: 绿七对 also counts "
    "绿一色 and 七对, 字全七对 also 字一色 and 七对, and so on (no 不重复原则 beyond the print).",
    differences=tuple(d for d in COMPETITION.differences if d[0] != "house_non_repetition"),
)

# mcr-wmo-2006.txt 3.8.1: the shapes whose definitions end "(自摸加计不求人)" (numbers 4, 6, 7, 12, 19, 20, 34)
_SELF_DRAWN_ADDS_FULLY_CONCEALED = (
    "nine_gates",
    "seven_shifted_pairs",
    "thirteen_orphans",
    "seven_pairs",
    "greater_honors_knitted",
    "lesser_honors_knitted",
)

WMO2006 = Profile(
    name="wmo2006",
    description="The WMO 2006 competition rules (mcr-wmo-2006.txt 3.8.1): the 1998 table's values and printed "
    "不计 lists, with the 2006 notes: 自摸加计不求人 for the concealed limit shapes, 暗杠加计 for "
    "三杠/四杠, one melded and one concealed kong 6; 边张/坎张/单钓将 for a unique wait; 字一色, 清幺九 and 混幺九 "
    "not on 七对.",
    concealed_kongs_add=True,
    pungs_not_pairs=PUNG_FANS[1:],
    excludes_remove={
        **{k: ("fully_concealed_hand",) for k in _SELF_DRAWN_ADDS_FULLY_CONCEALED},
        "three_kongs": ("concealed_kong",),
        "four_kongs": ("concealed_kong",),
    },
    differences=(
        (
            "self_drawn_adds_fully_concealed",
            "九莲宝灯, 连七对, 十三幺, 七对, 七星不靠 and 全不靠 won self-drawn "
            "count 不求人 4 (not 自摸 1): mcr-wmo-2006.txt 3.8.1 4, 6, 7, 19, 20, 34 (自摸加计不求人); 12 四暗刻 "
            "says the same, as every profile counts it. The 1998 lists print 不计不求人 for them.",
        ),
        (
            "concealed_kongs_add",
            "三杠 and 四杠 also count 暗杠 2 for each concealed kong: mcr-wmo-2006.txt 3.8.1 5, "
            "17 (暗杠加计). The 1998 lists of 5 and 17 print 不计暗杠.",
        ),
        (
            "melded_and_concealed_kong_6",
            "One melded and one concealed kong count 6: mcr-wmo-2006.txt 3.8.1 57 "
            "双明杠 (一明杠与一暗杠计6分), scored as 双明杠 4 + 暗杠 2; the 1998 table's 55 阴阳杠 (5) is not in the "
            "2006 list of 81 fans.",
        ),
        (
            "unique_wait",
            "边张/坎张/单钓将 need a hand waiting on exactly one tile: mcr-wmo-2006.txt 3.8.1 77 边张 "
            "只能听和123的3或789的7, 78 坎张 只能听和顺子中间的牌.",
        ),
        _PUNGS_NOT_PAIRS,
    ),
)

PROFILES: dict[str, Profile] = {p.name: p for p in (DEFAULT, COMPETITION, COMPETITION_LITERAL, MCR1998, WMO2006)}


# difference key -> the clauses it rests on (docs/profiles.md's table of differences is made from these and
# PROFILES by differences_table; tests/test_mcr_profiles.py checks the two agree)
DIFFERENCE_CLAUSES = {
    "nine_gates_no_terminal_pung": (
        "mcr-1998-table.txt 4 九莲宝灯 (its 不计 list); mcr-wmo-2006.txt 3.9.1 5(1) 不重复原则"
    ),
    "all_terminals_no_double_pung": (
        "mcr-1998-table.txt 8 清幺九 (its 不计 list); mcr-wmo-2006.txt 3.9.1 5(1) 不重复原则"
    ),
    "unique_wait": "mcr-1998-table.txt 78 边张 (12345和3…不算边张), 79 坎张; mcr-wmo-2006.txt 3.8.1 77, 78 (只能听)",
    "waits_by_shape": "competition-variant.txt 核分实例 (1) (与和牌数无关), (5) 组合龙",
    "winning_tile_apart": "competition-variant.txt 行牌 16",
    "concealed_by_definition": "competition-variant.txt 行牌 15",
    "knitted_no_all_chows_hog": "competition-variant.txt 核分实例 (5)",
    "kong_parts": "competition-variant.txt 核分实例 (6)",
    "pungs_not_pairs": "mcr-1998-table.txt 3, 8, 11, 18 (刻子…将); mcr-wmo-2006.txt 3.8.1 8, 11, 18 (刻子(杠)、将牌)",
    "implied_terminal_pungs": "competition-variant.txt 核分实例 (3)",
    "house_fans": "competition-variant.txt 新增番种 1-9",
    "house_non_repetition": "mcr-wmo-2006.txt 3.9.1 5(1) 不重复原则",
    "self_drawn_adds_fully_concealed": "mcr-wmo-2006.txt 3.8.1 4, 6, 7, 19, 20, 34 (自摸加计不求人); "
    "mcr-1998-table.txt 4, 6, 7, 19, 20, 34 (不计不求人)",
    "concealed_kongs_add": "mcr-wmo-2006.txt 3.8.1 5, 17 (暗杠加计); mcr-1998-table.txt 5, 17 (不计暗杠)",
    "melded_and_concealed_kong_6": "mcr-wmo-2006.txt 3.8.1 57 (一明杠与一暗杠计6分); mcr-1998-table.txt 55 阴阳杠 5",
}


def differences_table() -> str:
    """The Markdown table of every point where the MCR profiles differ: one row per difference key, "yes" under
    each profile that has it, the clause and what it does."""
    names = list(PROFILES)
    keys = list(dict.fromkeys(k for p in PROFILES.values() for k, _ in p.differences))
    text: dict = {}
    for p in PROFILES.values():
        for k, t in p.differences:
            text.setdefault(k, t)  # the first profile's wording
    rows = [
        "| difference | " + " | ".join(f"`{n}`" for n in names) + " | clause | what it does |",
        "|---|" + "---|" * len(names) + "---|---|",
    ]
    for k in keys:
        has = [" yes " if k in dict(PROFILES[n].differences) else "  " for n in names]
        rows.append(f"| `{k}` |" + "|".join(has) + f"| {DIFFERENCE_CLAUSES[k]} | {text[k]} |")
    return "\n".join(rows) + "\n"


def get_profile(name) -> Profile:
    """A Profile by name (None means "default"; the result's ``profile`` field always names the one used)."""
    if isinstance(name, Profile):
        return name
    if name is None:
        return DEFAULT
    try:
        return PROFILES[name]
    except KeyError:
        raise UnknownProfile(f"unknown MCR rule profile {name!r}; choose one of {', '.join(PROFILES)}") from None
