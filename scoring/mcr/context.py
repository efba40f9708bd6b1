"""The evaluation context: one candidate reading of one hand, with everything the predicates look at."""
from __future__ import annotations

from functools import lru_cache

from ..hand import KONG, Hand
from .shapes import CHOW_SET, PUNG_SET, Candidate


@lru_cache(maxsize=1 << 16)
def _kinds(counts: tuple) -> frozenset:
    return frozenset(t for t in range(34) if counts[t])


class Ctx:
    """Plain attribute bag built once per candidate; predicates only read it.

    ``sets``: every set of the hand as ``(kind, tile, concealed, kong, melded)`` — kind CHOW_SET/PUNG_SET,
    ``tile`` the lowest tile of a chow or the tile of a pung/kong, ``concealed`` True for a standing set or a
    concealed kong (a standing pung completed by a discard counts as exposed, see ``_pung_concealed``),
    ``melded`` True for a set declared on the table.
    """

    def __init__(self, hand: Hand, cand: Candidate, counts_all: tuple, standing: tuple, prof, notes: list):
        sit = hand.situation
        self.hand = hand
        self.cand = cand
        self.form = cand.form
        self.pair = cand.pair
        self.knit = cand.knit
        self.sit = sit
        self.prof = prof
        self.win = hand.winning_tile
        self.self_drawn = sit.self_drawn
        self.counts = counts_all          # all tiles, kongs as 4
        self.kinds = _kinds(counts_all)
        self.standing = standing          # concealed tiles without the winning tile
        self.notes = notes
        self.n_melds = len(hand.melds)
        self.n_claimed = sum(not m.concealed for m in hand.melds)
        self.kong_melds = sum(m.kind == KONG for m in hand.melds)
        sets = []
        for m in hand.melds:
            kind = CHOW_SET if m.kind == "chow" else PUNG_SET
            sets.append((kind, m.tile, m.concealed, m.kind == KONG, True))
        win_in_chow = any(k == CHOW_SET and s <= self.win <= s + 2 for k, s in cand.sets)
        for kind, t in cand.sets:
            concealed = True
            if kind == PUNG_SET and self.form == "regular":
                concealed = self._pung_concealed(t, win_in_chow)
            sets.append((kind, t, concealed, False, False))
        self.sets = sets
        self.chows = tuple(sorted(t for k, t, *_ in sets if k == CHOW_SET))
        self.pungs = tuple(sorted(t for k, t, *_ in sets if k == PUNG_SET))
        self.kongs_concealed = sum(1 for k, t, c, kong, _ in sets if kong and c)
        self.kongs_exposed = sum(1 for k, t, c, kong, _ in sets if kong and not c)
        self.n_kongs = self.kongs_concealed + self.kongs_exposed
        self.n_concealed_pungs = sum(1 for k, t, c, *_ in sets if k == PUNG_SET and c)
        self.cache: dict = {}

    def group_key(self, group: str):
        """Everything a predicate of ``group`` may read (the group's results are cached on this key)."""
        if group == "tiles":
            return (self.form, self.counts, self.n_kongs)
        if group == "sets":
            return (self.form, self.chows, self.pungs, self.pair, self.n_concealed_pungs, self.kongs_concealed,
                    self.kongs_exposed)
        if group == "winds":
            return (self.pungs, self.sit.seat_wind, self.sit.prevalent_wind)
        if group == "situation":
            return (self.n_claimed, self.self_drawn, self.flags_key)
        raise KeyError(group)

    def _pung_concealed(self, t: int, win_in_chow: bool) -> bool:
        """A standing pung of the winning tile is exposed (明刻) when the tile came from a discard and
        cannot be read as part of a standing chow instead."""
        return self.self_drawn or t != self.win or win_in_chow

    def all_sets_and_pair(self):
        """Sets as (kind, tile) plus the pair as ('pair', tile) — for the 'every set contains ...' fans."""
        out = [(k, t) for k, t, *_ in self.sets]
        if self.pair is not None:
            out.append(("pair", self.pair))
        return out
