"""The reference engine pymahjonggb's arguments for a hand, and its score (the differential test and the MCR
benchmarks, scripts/bench_mcr.py and bench_mcr_oracle.py). The engine never imports this module; pymahjonggb
(the test extra) is imported only when a hand is scored."""

from __future__ import annotations

from typing import Any

from ..hand import CHOW, LEFT, PUNG, RIGHT, Hand, Meld

_SUIT = "WBT"  # pymahjonggb: W = characters, B = dots (饼), T = bamboo (条)
_HONOR = ("F1", "F2", "F3", "F4", "J3", "J2", "J1")  # E S W N, White=J3 Green=J2 Red=J1
_OFFER = {LEFT: 3, "across": 2, RIGHT: 1}


def ref_tile(t: int) -> str:
    """A tile id in pymahjonggb's notation."""
    return f"{_SUIT[t // 9]}{t % 9 + 1}" if t < 27 else _HONOR[t - 27]


def _offer(m: Meld) -> int:
    """The seat a melded set's tile came from, as pymahjonggb counts it."""
    if m.source is None:
        raise ValueError(f"melded {m.kind} without a source seat")
    return _OFFER[m.source]


def ref_args(hand: Hand) -> dict[str, Any]:
    """The keyword arguments of pymahjonggb's MahjongFanCalculator for a hand (a hand with its winning tile)."""
    if hand.winning_tile is None:
        raise ValueError("the reference scores a hand with its winning tile")
    packs = []
    for m in hand.melds:
        if m.kind == CHOW:
            offer = 1 + ((m.claimed - m.tile) if m.claimed is not None else 0)
            packs.append(("CHI", ref_tile(m.tile + 1), offer))
        elif m.kind == PUNG:
            packs.append(("PENG", ref_tile(m.tile), _offer(m)))
        else:
            packs.append(("GANG", ref_tile(m.tile), 0 if m.concealed else _offer(m)))
    s = hand.situation
    return dict(
        pack=tuple(packs),
        hand=tuple(ref_tile(t) for t in hand.concealed),
        winTile=ref_tile(hand.winning_tile),
        flowerCount=len(hand.flowers),
        isSelfDrawn=s.self_drawn,
        is4thTile=s.last_copy,
        isAboutKong=s.kong_replacement or s.robbing_kong,
        isWallLast=s.last_tile,
        seatWind=s.seat_wind - 27,
        prevalentWind=s.prevalent_wind - 27,
    )


def ref_score(hand: Hand) -> tuple[int, dict[str, int]] | None:
    """(total incl. flowers, {english fan name: count}) or None if the reference says it is not a win."""
    from MahjongGB import MahjongFanCalculator

    try:
        fans = MahjongFanCalculator(**ref_args(hand), verbose=True)
    except TypeError:
        return None
    return sum(v * n for v, n, _, _ in fans), {en: n for v, n, _, en in fans}
