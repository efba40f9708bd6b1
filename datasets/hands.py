"""Random finished (winning) hands and how their melds lie on the table."""
from __future__ import annotations

import random
from typing import Optional

from mjtable.scoring import tiles as T
from mjtable.scoring.hand import ACROSS, CHOW, KONG, LEFT, PUNG, RIGHT, Hand, Meld, Situation
from mjtable.scoring.table import MeldOnTable, sideways_index

# index of the sideways (claimed) tile per source seat, for 3- and 4-tile melds


def _take(counts: list[int], tiles: list[int]) -> bool:
    need: dict[int, int] = {}
    for t in tiles:
        need[t] = need.get(t, 0) + 1
    if any(counts[t] + n > 4 for t, n in need.items()):
        return False
    for t, n in need.items():
        counts[t] += n
    return True


def _random_set(rng: random.Random) -> tuple[str, int]:
    if rng.random() < 0.55:
        s = rng.randrange(3)
        return CHOW, s * 9 + rng.randrange(7)
    return PUNG, rng.randrange(T.N_KINDS)


def random_winning_hand(rng: random.Random, added_kong: float = 0.0) -> Hand:
    """A random complete hand (4 sets + pair, or seven pairs) with melds, kongs, flowers.
    added_kong: probability that a melded kong is an added kong (加杠: a drawn tile added to a melded pung)."""
    counts = [0] * T.N_KINDS
    flowers = tuple(sorted(rng.sample(T.FLOWERS, rng.choice((0, 0, 0, 1, 1, 2, 3)))))
    situation = Situation(self_drawn=rng.random() < 0.4, seat_wind=rng.choice(T.WINDS),
                          prevalent_wind=rng.choice(T.WINDS), winning_tile_apart=True)
    if rng.random() < 0.12:
        pairs = rng.sample(range(T.N_KINDS), 7)
        concealed = sorted(t for p in pairs for t in (p, p))
        win = rng.choice(concealed)
        concealed.remove(win)
        return Hand(tuple(concealed), (), win, flowers, situation)
    n_melded = rng.choice((0, 0, 1, 1, 2, 2, 3, 4))
    melds: list[Meld] = []
    concealed: list[int] = []
    for i in range(4):
        while True:
            kind, tile = _random_set(rng)
            open_ = i < n_melded
            if kind == PUNG and rng.random() < 0.25:
                kind = KONG
            elif kind == PUNG and not open_ and rng.random() < 0.1:
                kind = KONG
            m_tiles = [tile, tile + 1, tile + 2] if kind == CHOW else [tile] * (4 if kind == KONG else 3)
            if _take(counts, m_tiles):
                break
        if kind == KONG and not open_:
            melds.append(Meld(KONG, tile, concealed=True))
        elif open_:
            source = LEFT if kind == CHOW else rng.choice((LEFT, ACROSS, RIGHT))
            claimed = rng.choice(m_tiles) if kind == CHOW else None
            added = kind == KONG and rng.random() < added_kong
            melds.append(Meld(kind, tile, source=source, claimed=claimed, added=added))
        else:
            concealed.extend(m_tiles)
    while True:
        p = rng.randrange(T.N_KINDS)
        if _take(counts, [p, p]):
            break
    concealed.extend([p, p])
    win = rng.choice(concealed)
    concealed.remove(win)
    return Hand(tuple(sorted(concealed)), tuple(melds), win, flowers, situation)


def meld_on_table(m: Meld, rng: random.Random) -> MeldOnTable:
    """How a meld lies: claimed tile sideways at the position of its source seat;
    a concealed kong shows its two outer (or inner) tiles face down; an added kong lies as its pung (3 tiles)
    with the added tile stacked on the sideways one (drawn by mjtable.datasets.scenes, not listed in ``tiles``)."""
    if m.concealed:
        if rng.random() < 0.7:
            tiles: tuple[Optional[int], ...] = (None, m.tile, m.tile, None)
        else:
            tiles = (m.tile, None, None, m.tile)
        return MeldOnTable(tiles, None, m)
    order = list(m.tiles)[:3] if m.added else list(m.tiles)
    n = len(order)
    idx = sideways_index(m.source, n)
    if m.kind == CHOW:
        claimed = m.claimed if m.claimed is not None else order[0]
        order.remove(claimed)
        order.insert(idx, claimed)
    return MeldOnTable(tuple(order), idx, m)
