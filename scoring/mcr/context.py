"""The evaluation context: one candidate reading of one hand, with everything the predicates look at."""

from __future__ import annotations

from functools import lru_cache

from ..hand import KONG, Hand
from .shapes import CHOW_SET, PUNG_SET, Candidate


def _kinds(counts) -> frozenset:
    return frozenset(t for t in range(34) if counts[t])


def melds_key(melds) -> tuple:
    """What scoring needs of the declared sets: (kind, tile, concealed)."""
    return tuple((CHOW_SET if m.kind == "chow" else PUNG_SET, m.tile, m.concealed, m.kind == KONG) for m in melds)


@lru_cache(maxsize=1 << 15)
def _structure(cand: Candidate, meld_key: tuple, win: int, self_drawn: bool):
    """Sets of a reading with the declared ones, as ``(kind, tile, concealed, kong, melded)``, and their counts.

    A standing pung of the winning tile is exposed (明刻) when the tile came from a discard and cannot be
    read as part of a standing chow instead."""
    sets = [(kind, t, concealed, kong, True) for kind, t, concealed, kong in meld_key]
    win_in_chow = any(k == CHOW_SET and s <= win <= s + 2 for k, s in cand.sets)
    for kind, t in cand.sets:
        concealed = True
        if kind == PUNG_SET and cand.form == "regular":
            concealed = self_drawn or t != win or win_in_chow
        sets.append((kind, t, concealed, False, False))
    chows = tuple(sorted(t for k, t, *_ in sets if k == CHOW_SET))
    pungs = tuple(sorted(t for k, t, *_ in sets if k == PUNG_SET))
    kc = sum(1 for k, t, c, kong, _ in sets if kong and c)
    ke = sum(1 for k, t, c, kong, _ in sets if kong and not c)
    n_cp = sum(1 for k, t, c, *_ in sets if k == PUNG_SET and c)
    n_claimed = sum(1 for *_, c, kong in meld_key if not c)
    return tuple(sets), chows, pungs, kc, ke, n_cp, n_claimed, len(meld_key)


class Ctx:
    """Plain attribute bag built once per candidate; predicates only read it.

    ``sets``: every set of the hand as ``(kind, tile, concealed, kong, melded)`` — kind CHOW_SET/PUNG_SET,
    ``tile`` the lowest tile of a chow or the tile of a pung/kong, ``concealed`` True for a standing set or a
    concealed kong (a standing pung completed by a discard counts as exposed, see ``_structure``),
    ``melded`` True for a set declared on the table.
    """

    # set by the engine after construction (the Situation flags checked once per hand: fans_situation.flags_for)
    flags: dict
    flags_key: tuple

    def __init__(
        self,
        hand: Hand,
        cand: Candidate,
        counts_all: tuple,
        standing: tuple,
        prof,
        notes: list,
        meld_key: tuple | None = None,
        structure: tuple | None = None,
    ):
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
        self.counts = counts_all  # all tiles, kongs as 4
        self.standing = standing  # concealed tiles without the winning tile
        self.notes = notes
        if structure is None:  # the engine passes the one it already has (``_structure``'s result)
            if meld_key is None:
                meld_key = melds_key(hand.melds)
            structure = _structure(cand, meld_key, self.win, self.self_drawn)
        (
            self.sets,
            self.chows,
            self.pungs,
            self.kongs_concealed,
            self.kongs_exposed,
            self.n_concealed_pungs,
            self.n_claimed,
            self.n_melds,
        ) = structure
        self.n_kongs = self.kongs_concealed + self.kongs_exposed
        self.cache: dict = {}

    @property
    def kinds(self) -> frozenset:
        """The tile kinds present (computed only when a predicate asks: most groups come from the cache)."""
        k = self.cache.get("kinds")
        if k is None:
            k = self.cache["kinds"] = _kinds(self.counts)
        return k

    def group_key(self, group: str):
        """Everything a predicate of ``group`` may read (the group's results are cached on this key)."""
        if group == "tiles":
            return (self.form, self.counts, self.n_kongs)
        if group == "sets":
            return (
                self.form,
                self.chows,
                self.pungs,
                self.pair,
                self.n_concealed_pungs,
                self.kongs_concealed,
                self.kongs_exposed,
            )
        if group == "winds":
            return (self.pungs, self.sit.seat_wind, self.sit.prevalent_wind)
        if group == "situation":
            return (self.n_claimed, self.self_drawn, self.flags_key)
        if group == "waits":
            return (
                self.cand,
                self.standing,
                self.win,
                self.n_claimed,
                self.n_kongs,
                self.n_melds,
                self.self_drawn,
                self.sit.winning_tile_apart,
                self.flags["heavenly"],
            )
        raise KeyError(group)

    def all_sets_and_pair(self):
        """Sets as (kind, tile) plus the pair as ('pair', tile) — for the 'every set contains ...' fans."""
        out = [(k, t) for k, t, *_ in self.sets]
        if self.pair is not None:
            out.append(("pair", self.pair))
        return out
