"""Adapter to the reference engine pymahjonggb (test and benchmark use only — never imported at run time)."""
from __future__ import annotations

from MahjongGB import MahjongFanCalculator

from mjtable.scoring.hand import CHOW, LEFT, PUNG, RIGHT, Hand

_SUIT = "WBT"                       # pymahjonggb: W = characters, B = dots (饼), T = bamboo (条)
_HONOR = ("F1", "F2", "F3", "F4", "J3", "J2", "J1")   # E S W N, White=J3 Green=J2 Red=J1
_OFFER = {LEFT: 3, "across": 2, RIGHT: 1}


def ref_tile(t: int) -> str:
    return f"{_SUIT[t // 9]}{t % 9 + 1}" if t < 27 else _HONOR[t - 27]


def ref_args(hand: Hand) -> dict:
    packs = []
    for m in hand.melds:
        if m.kind == CHOW:
            offer = 1 + ((m.claimed - m.tile) if m.claimed is not None else 0)
            packs.append(("CHI", ref_tile(m.tile + 1), offer))
        elif m.kind == PUNG:
            packs.append(("PENG", ref_tile(m.tile), _OFFER[m.source]))
        else:
            packs.append(("GANG", ref_tile(m.tile), 0 if m.concealed else _OFFER[m.source]))
    s = hand.situation
    return dict(pack=tuple(packs), hand=tuple(ref_tile(t) for t in hand.concealed),
                winTile=ref_tile(hand.winning_tile), flowerCount=len(hand.flowers), isSelfDrawn=s.self_drawn,
                is4thTile=s.last_copy, isAboutKong=s.kong_replacement or s.robbing_kong, isWallLast=s.last_tile,
                seatWind=s.seat_wind - 27, prevalentWind=s.prevalent_wind - 27)


def ref_score(hand: Hand):
    """(total incl. flowers, {english fan name: count}) or None if the reference says it is not a win."""
    try:
        fans = MahjongFanCalculator(**ref_args(hand), verbose=True)
    except TypeError:
        return None
    return sum(v * n for v, n, _, _ in fans), {en: n for v, n, _, en in fans}
