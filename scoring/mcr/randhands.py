"""Seeded generator of random *winning-shape* MCR hands (for differential tests and benchmarks).

Covers 4 sets + pair with chows, pungs, melded/concealed/added kongs, seven pairs (incl. shifted and
4-of-a-kind), thirteen orphans, 全不靠/七星不靠 and 组合龙 hands, themed tile pools (one suit, honours,
terminals, greens, reversible, low/middle/high numbers ...), random winds and every Situation flag.
The hands are shapes, not necessarily worth 8 points.
"""

from __future__ import annotations

import random

from ..hand import ACROSS, CHOW, KONG, LEFT, PUNG, RIGHT, Hand, Meld, Situation
from .shapes import KNITTED_STRAIGHTS, ORPHANS

_ALL = tuple(range(34))
_THEMES = {
    "any": _ALL,
    "one_suit_m": tuple(range(0, 9)),
    "one_suit_honors": tuple(range(9, 18)) + tuple(range(27, 34)),
    "honors": tuple(range(27, 34)),
    "terminals_honors": (0, 8, 9, 17, 18, 26) + tuple(range(27, 34)),
    "terminals": (0, 8, 9, 17, 18, 26),
    "green": (19, 20, 21, 23, 25, 32),
    "reversible": (9, 10, 11, 12, 13, 16, 17, 19, 21, 22, 23, 25, 26, 31),
    "low": tuple(t for t in range(27) if t % 9 <= 3),
    "high": tuple(t for t in range(27) if t % 9 >= 5),
    "middle": tuple(t for t in range(27) if 3 <= t % 9 <= 5),
    "winds_dragons": tuple(range(27, 34)) + tuple(range(18, 27)),
    "even": tuple(t for t in range(27) if t % 9 in (1, 3, 5, 7)),
    "two_suits": tuple(range(0, 18)),
}
_THEME_W = {
    "any": 10,
    "one_suit_m": 3,
    "one_suit_honors": 3,
    "honors": 1,
    "terminals_honors": 2,
    "terminals": 1,
    "green": 1,
    "reversible": 1,
    "low": 1,
    "high": 1,
    "middle": 1,
    "winds_dragons": 2,
    "even": 1,
    "two_suits": 3,
}


def _situation(rng: random.Random, has_kong: bool, noisy: bool = False) -> Situation:
    self_drawn = rng.random() < 0.45
    return Situation(
        self_drawn=self_drawn,
        seat_wind=rng.choice((27, 28, 29, 30)),
        prevalent_wind=rng.choice((27, 28, 29, 30)),
        last_tile=rng.random() < 0.08,
        kong_replacement=self_drawn and (has_kong or noisy) and rng.random() < 0.3,
        robbing_kong=(not self_drawn) and rng.random() < 0.05,
        last_copy=rng.random() < 0.1,
    )


def _pick_sets(rng, pool, n_sets, counts):
    sets = []
    tries = 0
    while len(sets) < n_sets and tries < 200:
        tries += 1
        t = rng.choice(pool)
        if rng.random() < 0.55 and t < 27 and t % 9 <= 6 and (t + 2 in pool or rng.random() < 0.3):
            if all(counts[x] < 4 for x in (t, t + 1, t + 2)):
                for x in (t, t + 1, t + 2):
                    counts[x] += 1
                sets.append((CHOW, t))
        elif counts[t] <= 1:
            counts[t] += 3
            sets.append((PUNG, t))
    return sets if len(sets) == n_sets else None


def _declare(rng, sets, pair, counts):
    """Turn chosen sets + pair into standing tiles and melds (claimed chows/pungs, kongs)."""
    p_meld = rng.choice((0.0, 0.0, 0.3, 0.6, 1.0))
    melds, standing = [], [pair, pair]
    for kind, t in sets:
        if rng.random() < p_meld:
            if kind == CHOW:
                melds.append(Meld(CHOW, t, source=LEFT, claimed=t + rng.randrange(3)))
            elif counts[t] == 3 and rng.random() < 0.35:
                counts[t] += 1
                if rng.random() < 0.4:
                    melds.append(Meld(KONG, t, concealed=True))
                else:
                    melds.append(Meld(KONG, t, source=rng.choice((LEFT, ACROSS, RIGHT)), added=rng.random() < 0.3))
            else:
                melds.append(Meld(PUNG, t, source=rng.choice((LEFT, ACROSS, RIGHT))))
        elif kind == PUNG and counts[t] == 3 and rng.random() < 0.12:
            counts[t] += 1
            melds.append(Meld(KONG, t, concealed=True))
        else:
            standing += [t, t + 1, t + 2] if kind == CHOW else [t, t, t]
    return standing, melds


def _regular(rng, pool):
    counts = [0] * 34
    pair = rng.choice(pool)
    counts[pair] += 2
    sets = _pick_sets(rng, pool, 4, counts)
    if sets is None:
        return None
    return _declare(rng, sets, pair, counts)


def _chow_template(rng):
    """Chow-structured hands: straights, shifted/triple chows, terminal chows, all-five, nine gates."""
    s = rng.sample((0, 9, 18), 3)
    k = rng.randrange(11)
    if k == 0:  # nine gates: 1112345678999 + one tile of the suit
        tiles = [s[0] + r for r in (0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8)] + [s[0] + rng.randrange(9)]
        rng.randrange(14)  # kept: the draws after it stay as they were
        return "nine_gates", tiles, []
    if k == 1:  # 三色双龙会 / 一色双龙会
        if rng.random() < 0.5:
            sets = [(CHOW, s[0]), (CHOW, s[0] + 6), (CHOW, s[1]), (CHOW, s[1] + 6)]
            pair = s[2] + 4
        else:
            sets = [(CHOW, s[0]), (CHOW, s[0] + 6)] * 2
            pair = s[0] + 4
    elif k == 2:  # pure straight + one more set
        sets = [(CHOW, s[0]), (CHOW, s[0] + 3), (CHOW, s[0] + 6)]
        pair = None
    elif k == 3:  # mixed straight
        sets = [(CHOW, s[0]), (CHOW, s[1] + 3), (CHOW, s[2] + 6)]
        pair = None
    elif k == 4:  # pure shifted chows, step 1 or 2, 3 or 4 chows
        step = rng.choice((1, 2))
        n = rng.choice((3, 4))
        start = rng.randrange(7 - step * (n - 1))
        sets = [(CHOW, s[0] + start + i * step) for i in range(n)]
        pair = None
    elif k == 5:  # mixed shifted chows / pungs
        start = rng.randrange(5)
        kind = rng.choice((CHOW, PUNG))
        sets = [(kind, s[i] + start + i) for i in range(3)]
        pair = None
    elif k == 6:  # mixed / pure triple chow
        r = rng.randrange(7)
        sets = [(CHOW, s[i] + r) for i in range(3)] if rng.random() < 0.5 else [(CHOW, s[0] + r)] * 3
        pair = None
    elif k == 7:  # all five
        sets = [(rng.choice((CHOW, CHOW, PUNG)), x) for x in (rng.choice(s) + 4 for _ in range(4))]
        sets = [(kd, t - rng.choice((0, 1, 2)) if kd == CHOW else t) for kd, t in sets]
        pair = rng.choice(s) + 4
    elif k == 8:  # plain mixed hand with an honour pair (无番和 candidates)
        sets = [
            (CHOW, s[0] + rng.randrange(1, 6)),
            (CHOW, s[1] + rng.randrange(1, 6)),
            (CHOW, s[2] + rng.randrange(1, 6)),
            (PUNG, rng.choice(s) + rng.randrange(1, 8)),
        ]
        pair = rng.choice((27, 28, 29, 30, 31, 32, 33))
    else:  # four random chows (exercise the chow combinations)
        sets = [(CHOW, rng.choice(s) + rng.randrange(7)) for _ in range(4)]
        pair = None
    counts = [0] * 34
    for kd, t in sets:
        for x in (t, t + 1, t + 2) if kd == CHOW else (t, t, t):
            counts[x] += 1
    if pair is None:
        pair = rng.choice(_ALL)
    counts[pair] += 2
    while len(sets) < 4:
        more = _pick_sets(rng, _ALL, 1, counts)
        if more is None:
            return None
        sets += more
    if max(counts) > 4:
        return None
    return ("sets",) + _declare(rng, sets, pair, counts)


def _seven_pairs(rng, pool):
    if rng.random() < 0.15:
        s = rng.randrange(3) * 9 + rng.randrange(3)
        kinds = list(range(s, s + 7))
        return [t for t in kinds for _ in (0, 1)], []
    if len(pool) < 4:
        pool = _ALL
    out = []
    counts = [0] * 34
    while len(out) < 14:
        t = rng.choice(pool)
        if counts[t] <= 2 and (counts[t] == 0 or rng.random() < 0.15):
            counts[t] += 2
            out += [t, t]
    return out, []


def _orphans(rng):
    return list(ORPHANS) + [rng.choice(ORPHANS)], []


def _honors_knitted(rng):
    knit = rng.choice(KNITTED_STRAIGHTS)
    tiles = list(knit) + list(range(27, 34))
    if rng.random() < 0.3:  # 七星不靠: all honours, 7 of the 9 knitted tiles
        return rng.sample(list(knit), 7) + list(range(27, 34)), []
    return rng.sample(tiles, 14), []


def _knitted_straight(rng, pool):
    knit = rng.choice(KNITTED_STRAIGHTS)
    counts = [0] * 34
    for t in knit:
        counts[t] += 1
    pair = rng.choice(pool)
    if counts[pair] > 2:
        return None
    counts[pair] += 2
    sets = _pick_sets(rng, pool, 1, counts)
    if sets is None:
        return None
    ((kind, t),) = sets
    standing = list(knit) + [pair, pair]
    melds = []
    if rng.random() < 0.35:
        if kind == CHOW:
            melds.append(Meld(CHOW, t, source=LEFT))
        elif counts[t] == 3 and rng.random() < 0.4:
            melds.append(
                Meld(KONG, t, concealed=rng.random() < 0.5, source=None)
                if rng.random() < 0.5
                else Meld(KONG, t, source=RIGHT)
            )
        else:
            melds.append(Meld(PUNG, t, source=ACROSS))
    else:
        standing += [t, t + 1, t + 2] if kind == CHOW else [t, t, t]
    return standing, melds


def random_hand(rng: random.Random, noisy: bool = False) -> Hand:
    """One random winning-shape hand; ``noisy`` also sets 杠上开花 without a kong (to test flag checks)."""
    while True:
        pool = _THEMES[rng.choices(list(_THEME_W), weights=list(_THEME_W.values()))[0]]
        r = rng.random()
        if r < 0.62:
            got = _regular(rng, pool)
        elif r < 0.74:
            got = _chow_template(rng)
            got = got and got[1:]
        elif r < 0.86:
            got = _seven_pairs(rng, pool)
        elif r < 0.89:
            got = _orphans(rng)
        elif r < 0.93:
            got = _honors_knitted(rng)
        else:
            got = _knitted_straight(rng, pool)
        if got is None:
            continue
        standing, melds = got
        melds = tuple(
            m if m.kind != KONG or m.concealed or m.source else Meld(KONG, m.tile, concealed=True) for m in melds
        )
        win_i = rng.randrange(len(standing))
        win = standing[win_i]
        concealed = tuple(sorted(standing[:win_i] + standing[win_i + 1 :]))
        flowers = tuple(sorted(rng.sample(range(34, 42), rng.choice((0, 0, 0, 1, 2, 3)))))
        sit = _situation(rng, any(m.kind == KONG for m in melds), noisy)
        return Hand(concealed, melds, win, flowers, sit)


def random_hands(n: int, seed: int = 0, noisy: bool = False) -> list:
    rng = random.Random(seed)
    return [random_hand(rng, noisy) for _ in range(n)]
