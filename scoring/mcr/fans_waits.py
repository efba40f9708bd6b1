"""Wait family (和法 part 1): 边张, 坎张, 单钓将 — at most one of them per hand.

Two readings, chosen by the profile:

* by *unique wait* (``default``, as the 1998 table's examples and the reference engine): the standing tiles
  before the win must wait on exactly one tile (4 sets + pair waits, plus seven-pairs waits for a concealed
  hand); then the winning tile's place in the chosen reading decides: end of a chow (边), middle of a chow (坎),
  the pair (钓). "12345 和 3 不算边张".
* by *shape* (``competition``): only the winning tile's place counts, however many tiles the hand waited on
  ("1113 和 3 为钓、和 2 为坎"; "组合龙中和 4、5、6 为坎").

Under every profile none of them counts when the winning tile was not set apart (``Situation.winning_tile_apart``
False): it is kept apart "以便核查" (mcr-wmo-2006.txt 3.4.28, mcr-1998-table.txt 单放; competition-variant.txt
行牌 16 不计边、坎、钓), and which tile won, hence the wait, cannot be checked.
"""

from __future__ import annotations

from .fantable import fan
from .shapes import CHOW_SET, regular_waits, seven_pairs_waits

EDGE, CLOSED, SINGLE = "edge", "closed", "single"


def _place(sets, pair, win, by_shape):
    """Best wait kind for the winning tile among the standing sets and pair (edge > closed > single)."""
    flags = set()
    for kind, t in sets:
        if kind != CHOW_SET or not t <= win <= t + 2:
            continue
        if win == t + 1:
            flags.add(CLOSED)
        elif not by_shape:
            flags.add(EDGE)
        elif (win == t + 2 and t % 9 == 0) or (win == t and t % 9 == 6):
            flags.add(EDGE)
    if pair == win:
        flags.add(SINGLE)
    for k in (EDGE, CLOSED, SINGLE):
        if k in flags:
            return k
    return None


def _unique_wait(c) -> bool:
    w = regular_waits(c.standing, c.prof.fifth_copy_waits)
    if len(w) != 1:  # none, or already more than one (seven-pairs waits only add)
        return False
    if c.n_melds == 0:
        w = w | seven_pairs_waits(c.standing)
    return len(w) == 1


def _wait_default(c):
    if c.form == "regular":
        if (c.n_claimed == 4 and not c.self_drawn) or c.n_kongs == 4:
            return None
        if not _unique_wait(c):
            return None
        return _place(c.cand.sets, c.pair, c.win, False)
    if c.form == "knitted_straight":
        if c.n_melds == 0:
            rest = [0] * 34
            for kind, t in c.cand.sets:
                for x in (t, t + 1, t + 2) if kind == CHOW_SET else (t, t, t):
                    rest[x] += 1
            rest[c.pair] += 2
            if rest[c.win] == 0:
                return None  # the winning tile completed the knitted straight itself
            rest[c.win] -= 1
            w = regular_waits(bytes(rest), c.prof.fifth_copy_waits)
            if len(w) != 1:
                return None
            return _place(c.cand.sets, c.pair, c.win, False)
        return SINGLE if c.standing[c.win] >= 1 else None
    return None


def _wait_by_shape(c):
    if c.form == "regular" and (c.n_claimed == 4 and not c.self_drawn or c.n_kongs == 4):
        return None
    if c.form not in ("regular", "knitted_straight"):
        return None
    k = _place(c.cand.sets, c.pair, c.win, True)
    if k is None and c.form == "knitted_straight" and c.win in c.knit and c.win % 9 in (3, 4, 5):
        k = CLOSED
    return k


def wait_kind(c):
    if "wait" not in c.cache:
        if c.flags["heavenly"] or not c.sit.winning_tile_apart:
            c.cache["wait"] = None  # 天和 has no wait; a tile not set apart cannot be checked (3.4.28)
        else:
            c.cache["wait"] = _wait_by_shape(c) if c.prof.waits_by_shape else _wait_default(c)
    return c.cache["wait"]


@fan(78, "edge_wait", "边张", "Edge Wait", 1, group="waits")
def edge_wait(c):
    """Won on the 3 of 12 or the 7 of 89 (1233 和 3 and 7789 和 7 too)."""
    return wait_kind(c) == EDGE


@fan(79, "closed_wait", "坎张", "Closed Wait", 1, group="waits")
def closed_wait(c):
    """Won on the middle tile of a chow (4556 和 5 too)."""
    return wait_kind(c) == CLOSED


@fan(80, "single_wait", "单钓将", "Single Wait", 1, group="waits")
def single_wait(c):
    """Won on the tile that pairs a single tile."""
    return wait_kind(c) == SINGLE
