"""Situation family (和法 part 2): how the hand was won and how concealed it is.

``situation_flags`` checks the Situation against the tiles once per hand: a flag that cannot be true is
dropped with a note (never silently), and 和绝张 is derived when the other three copies lie in the hand's own
melds. The predicates read the checked flags from ``c.flags``.
"""

from __future__ import annotations

from .. import tiles as T
from ..hand import KONG
from .fantable import fan


def situation_flags(hand, prof) -> tuple[dict, list]:
    win = hand.winning_tile
    f, notes = flags_for(
        hand.situation,
        prof,
        win in hand.concealed,
        sum(m.tiles.count(win) for m in hand.melds),
        any(m.kind == KONG for m in hand.melds),
        bool(hand.melds),
    )
    return dict(f), list(notes)


def flags_for(sit, prof, in_hand: bool, in_melds: int, has_kong: bool, has_melds: bool) -> tuple[dict, tuple]:
    """The checked flags and the notes, from the Situation and the only tile facts they depend on: whether the
    standing hand holds the winning tile, how many copies of it the melds hold, whether there is a declared
    kong / any meld. The engine caches this on those arguments (the returned dict is shared: read only)."""
    notes: list = []
    f = {
        "self_drawn": sit.self_drawn,
        "last_tile": sit.last_tile,
        "last_copy": sit.last_copy,
        "kong_replacement": sit.kong_replacement,
        "robbing_kong": sit.robbing_kong,
        "heavenly": sit.heavenly_win,
        "earthly": sit.earthly_win,
        "human": sit.human_win,
    }
    if f["last_copy"] and in_hand:
        f["last_copy"] = False
        notes.append("和绝张 ignored: the hand itself holds a copy of the winning tile")
    if not f["last_copy"] and in_melds == 3:
        f["last_copy"] = True
        notes.append("和绝张 counted: the other three copies are in the hand's own melds")
    if prof.require_apart and not sit.winning_tile_apart:
        if f["last_copy"]:
            notes.append("和绝张 not counted: the winning tile was not set apart")
        f["last_copy"] = False
        notes.append("winning tile not set apart: no 边张/坎张/单钓将/和绝张/九莲宝灯 (competition rules)")
    elif not sit.winning_tile_apart:
        notes.append(
            "winning tile not set apart: no 边张/坎张/单钓将, the wait cannot be checked "
            "(mcr-wmo-2006.txt 3.4.28 以便核查)"
        )
    if f["kong_replacement"] and not (sit.self_drawn and has_kong):
        f["kong_replacement"] = False
        notes.append("杠上开花 ignored: needs a self-drawn win and a declared kong")
    if f["robbing_kong"] and (sit.self_drawn or in_hand or in_melds):
        f["robbing_kong"] = False
        notes.append("抢杠和 ignored: needs a win on another player's added kong tile that this hand does not hold")
    if not prof.extra_fans:
        for k, name in (("heavenly", "天和"), ("earthly", "地和"), ("human", "人和")):
            if f[k]:
                notes.append(f"{name} is not a fan in profile {prof.name!r}")
                f[k] = False
    else:
        if f["heavenly"] and (not sit.self_drawn or sit.seat_wind != T.EAST or has_melds):
            f["heavenly"] = False
            notes.append("天和 ignored: needs the dealer (East seat) winning on the first 14 tiles, self-drawn")
        if f["earthly"] and (sit.self_drawn or sit.seat_wind == T.EAST or has_melds):
            f["earthly"] = False
            notes.append("地和 ignored: needs a non-dealer winning on the dealer's first discard")
        if f["human"] and has_melds:
            f["human"] = False
            notes.append("人和 ignored: needs a hand ready from the deal and never changed")
    return f, tuple(notes)


@fan(44, "last_tile_draw", "妙手回春", "Last Tile Draw", 8, ("self_drawn",), group="situation")
def last_tile_draw(c):
    """Self-drawn win on the last tile of the wall."""
    return c.flags["last_tile"] and c.self_drawn


@fan(45, "last_tile_claim", "海底捞月", "Last Tile Claim", 8, group="situation")
def last_tile_claim(c):
    """Win on the last discard."""
    return c.flags["last_tile"] and not c.self_drawn


@fan(46, "out_with_replacement_tile", "杠上开花", "Out with Replacement Tile", 8, ("self_drawn",), group="situation")
def out_with_replacement_tile(c):
    """Win on the replacement tile drawn after a kong (not after a flower)."""
    return c.flags["kong_replacement"]


@fan(47, "robbing_the_kong", "抢杠和", "Robbing The Kong", 8, ("last_tile",), group="situation")
def robbing_the_kong(c):
    """Win on the tile another player adds to a melded pung."""
    return c.flags["robbing_kong"]


@fan(52, "melded_hand", "全求人", "Melded Hand", 6, ("single_wait",), group="situation")
def melded_hand(c):
    """Four claimed sets, won on a discard with a single wait."""
    return c.n_claimed == 4 and not c.self_drawn


@fan(
    57, "fully_concealed_hand", "不求人", "Fully Concealed Hand", 4, ("concealed_hand", "self_drawn"), group="situation"
)
def fully_concealed_hand(c):
    """Nothing claimed (concealed kongs allowed), self-drawn."""
    return c.n_claimed == 0 and c.self_drawn


@fan(59, "last_tile", "和绝张", "Last Tile", 4, group="situation")
def last_tile(c):
    """Won on the last copy of a tile whose other three are visible."""
    return c.flags["last_copy"]


@fan(63, "concealed_hand", "门前清", "Concealed Hand", 2, group="situation")
def concealed_hand(c):
    """Nothing claimed (concealed kongs allowed), won on a discard."""
    return c.n_claimed == 0 and not c.self_drawn


@fan(81, "self_drawn", "自摸", "Self-Drawn", 1, group="situation")
def self_drawn(c):
    return c.self_drawn


# ---- competition variant house fans ----


@fan(
    101,
    "heavenly_hand",
    "天和",
    "Heavenly Hand",
    88,
    ("self_drawn",),
    house=True,
    group="situation",
)
def heavenly_hand(c):
    """The dealer wins on the first 14 tiles."""
    return c.flags["heavenly"]


@fan(105, "earthly_hand", "地和", "Earthly Hand", 64, ("concealed_hand",), house=True, group="situation")
def earthly_hand(c):
    """A player wins on the dealer's first discard."""
    return c.flags["earthly"]


@fan(108, "human_hand", "人和", "Human Hand", 48, house=True, group="situation")
def human_hand(c):
    """Ready from the deal (13 tiles), never changed, then won."""
    return c.flags["human"]
