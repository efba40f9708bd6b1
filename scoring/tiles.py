"""Tile identities shared by every stage.

A tile kind is a small int:
  0..8   characters 1-9 (万, notation ``m``)
  9..17  dots 1-9       (饼/筒, notation ``p``)
  18..26 bamboo 1-9     (条/索, notation ``s``)
  27..33 honours        (notation ``z``: 1..4 = East South West North, 5 = White, 6 = Green, 7 = Red)
  34..41 flowers        (notation ``f``: 1..4 = spring summer autumn winter, 5..8 = plum orchid chrysanthemum bamboo)
The detector uses the same ids as class ids, plus ``BACK`` (42) for a face-down tile.
"""

from __future__ import annotations

N_KINDS = 34  # playing tiles (no flowers)
N_TILES = 42  # with flowers
BACK = 42  # detector class for a face-down tile
N_CLASSES = 43

MAN, PIN, SOU, HONOR, FLOWER = 0, 1, 2, 3, 4
SUIT_LETTERS = "mpszf"

EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED = range(27, 34)
WINDS = (EAST, SOUTH, WEST, NORTH)
DRAGONS = (WHITE, GREEN, RED)
TERMINALS = (0, 8, 9, 17, 18, 26)
HONORS = tuple(range(27, 34))
TERMINALS_HONORS = TERMINALS + HONORS
FLOWERS = tuple(range(34, 42))
# faces that look the same turned 180 degrees (MCR's Reversible Tiles, 推不倒): 1234589 dots, 245689 bamboo, White;
# their look tells nothing of which way up a tile lies
REVERSIBLE = frozenset((9, 10, 11, 12, 13, 16, 17, 19, 21, 22, 23, 25, 26, WHITE))

_CN_NUM = "一二三四五六七八九"
_CN_SUIT = {MAN: "万", PIN: "饼", SOU: "条"}
_CN_HONOR = ("东风", "南风", "西风", "北风", "白板", "发财", "红中")
_CN_FLOWER = ("春", "夏", "秋", "冬", "梅", "兰", "菊", "竹")
_EN_SUIT = {MAN: "characters", PIN: "dots", SOU: "bamboo"}
_EN_HONOR = ("East", "South", "West", "North", "White", "Green", "Red")
_EN_FLOWER = ("Spring", "Summer", "Autumn", "Winter", "Plum", "Orchid", "Chrysanthemum", "Bamboo")
WIND_NAMES = ("E", "S", "W", "N")


def suit(t: int) -> int:
    """MAN, PIN, SOU, HONOR or FLOWER."""
    if t < 27:
        return t // 9
    return HONOR if t < 34 else FLOWER


def rank(t: int) -> int:
    """1..9 for suited tiles, 1..7 for honours, 1..8 for flowers."""
    if t < 27:
        return t % 9 + 1
    return t - 26 if t < 34 else t - 33


def is_suited(t: int) -> bool:
    return 0 <= t < 27


def is_run(ts) -> bool:
    """Three tiles, in order, making a chow: one suit, each one more than the one before."""
    return (
        len(ts) == 3 and is_suited(ts[0]) and ts[1] == ts[0] + 1 and ts[2] == ts[0] + 2 and suit(ts[0]) == suit(ts[2])
    )


def is_honor(t: int) -> bool:
    return 27 <= t < 34


def is_terminal(t: int) -> bool:
    return t < 27 and t % 9 in (0, 8)


def is_flower(t: int) -> bool:
    return 34 <= t < 42


def make(suit_: int, rank_: int) -> int:
    return suit_ * 9 + rank_ - 1 if suit_ < HONOR else (27 + rank_ - 1 if suit_ == HONOR else 33 + rank_)


def code(t: int) -> str:
    """Short code such as ``5m``, ``7z``, ``3f``; ``back`` for BACK."""
    if t == BACK:
        return "back"
    return f"{rank(t)}{SUIT_LETTERS[suit(t)]}"


def chinese(t: int) -> str:
    """Chinese display name: 一万, 九条, 东风, 红中, 梅 ..."""
    if t == BACK:
        return "牌背"
    s = suit(t)
    if s < HONOR:
        return _CN_NUM[rank(t) - 1] + _CN_SUIT[s]
    if s == HONOR:
        return _CN_HONOR[t - 27]
    return _CN_FLOWER[t - 34]


def english(t: int) -> str:
    if t == BACK:
        return "back"
    s = suit(t)
    if s < HONOR:
        return f"{rank(t)} {_EN_SUIT[s]}"
    if s == HONOR:
        return _EN_HONOR[t - 27]
    return _EN_FLOWER[t - 34]
