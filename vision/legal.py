"""Reading under the rules: the likeliest reading of a photographed hand that the rules allow.

A hand holds at most 4 copies of a tile (1 of each flower), and a hand declared a win has a winning shape. When
the tiles as read break either rule, some tile was misread: the least sure tiles of the scored hand (its
concealed tiles, winning tile and flowers; a meld's tiles are already read as a set by the layout parser) are
tried at their likeliest kinds (Detection.candidates and .alternatives), at most MAX_TILES tiles x TOP kinds,
and the reading of the highest product of probabilities that the rules allow is offered beside the raw one:
``Reading.legal``, printed as "Legal reading: 6s read as 4s (p 0.88) would make ...; check it". The raw reading
is not replaced: the player checks the photo. An MCR winning shape under the 8-point minimum (错和, a penalty) is
read again too, at the kinds the classifier gave NEAR_P or more only, and a reading that makes it a win is offered:
the penalty rests on a tile nearly read otherwise. So too when one of the hand's melded pungs, read as a kong,
makes the 8 points (kong_would_win): a kong whose fourth tile the reader missed reads as a pung, and the tile
count, which a kong's fourth tile does not change, does not show it.

The winning-shape test and the score are the engines' (mjtable.scoring.areas.score_area, as the pipeline's
review scores a declared winner).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from typing import Optional

from mjtable.scoring import tiles as T
from mjtable.scoring.hand import KONG, PUNG, Hand
from mjtable.scoring.result import ScoreResult
from mjtable.scoring.table import MeldOnTable, PlayerArea

MAX_TILES = 4            # the least sure tiles of the hand tried at other kinds
TOP = 3                  # kinds tried per tile (the one read included)
MIN_P = 0.02             # a kind the classifier gives less than this is not tried
NEAR_P = 0.2             # an MCR hand under 8 points is read again only at kinds at least this likely
GROUPS = ("concealed", "winning", "flower")


@dataclass(frozen=True)
class Change:
    """One tile of the legal reading: read as ``was`` with probability ``p_was``, taken as ``now`` (``p_now``)."""
    group: str
    was: int
    now: int
    p_was: float
    p_now: float

    def __str__(self) -> str:
        return f"{T.code(self.now)} read as {T.code(self.was)} (p {self.p_was:.2f})"

    def to_dict(self) -> dict:
        return {"group": self.group, "read": T.code(self.was), "p_read": round(self.p_was, 3),
                "legal": T.code(self.now), "p_legal": round(self.p_now, 3)}


@dataclass(frozen=True)
class LegalReading:
    """The likeliest reading the rules allow where the raw one breaks them: the tiles changed, why the raw reading
    is not allowed, the hand and its score."""
    changes: tuple[Change, ...]
    why: str
    hand: Hand
    result: Optional[ScoreResult]
    odds: float                   # its probability over the raw reading's (product over the changed tiles)

    def changes_text(self) -> str:
        return "; ".join(str(c) for c in self.changes)

    def text(self) -> str:
        what = self.changes_text()
        r = self.result
        if r is not None and r.is_win:
            unit = "番" if r.rules == "sichuan" else "分"
            made = f"a winning hand of {r.total} {unit}"
        else:
            made = "a hand the rules allow" + (f" (not a win: {r.reason})" if r is not None else "")
        return f"Legal reading: {what} would make {made}, where the tiles as read {self.why}; check it"

    def to_dict(self) -> dict:
        from mjtable.scoring.jsonio import hand_to_dict, result_to_dict
        return {"changes": [c.to_dict() for c in self.changes], "why": self.why, "odds": round(self.odds, 4),
                "hand": hand_to_dict(self.hand), "result": None if self.result is None else result_to_dict(self.result)}


def choices(det, top: int = TOP, min_p: float = MIN_P) -> list[tuple[int, float]]:
    """The kinds a face-up tile may be, likeliest first: the one read, then its candidates and alternatives of
    the same family (a flower's among the flowers, a hand tile's among the 34 playing kinds: the layout placed
    the tile by its family, and a flower among the concealed tiles is no hand), those of probability min_p or
    more, ``top`` at most."""
    out = [(det.kind, det.kind_p)]
    flower = T.is_flower(det.kind)
    for k, q in tuple(det.candidates) + tuple(det.alternatives):
        if k != T.BACK and T.is_flower(k) == flower and q >= min_p and all(k != o for o, _ in out):
            out.append((k, q))
    return out[:1] + sorted(out[1:], key=lambda kq: -kq[1])[:top - 1]


def _swap(seq: tuple, old: int, new: int) -> Optional[tuple]:
    """seq with one ``old`` made ``new``; None when seq holds no ``old``."""
    if seq is None or old not in seq:
        return None
    i = seq.index(old)
    return seq[:i] + (new,) + seq[i + 1:]


def changed_area(area: PlayerArea, moves: list[tuple[str, int, int]]) -> PlayerArea:
    """The player area with each (group, old kind, new kind) applied: a concealed tile, the winning tile (a
    winning tile not set apart may stand among the concealed ones) or a flower."""
    for group, old, new in moves:
        if group == "flower":
            area = replace(area, flowers=_swap(area.flowers, old, new) or area.flowers)
            continue
        first = "winning" if group == "winning" else "concealed"
        for where in (first, "concealed" if first == "winning" else "winning"):
            if where == "winning" and area.winning_tile == old:
                area = replace(area, winning_tile=new)
                break
            if where == "concealed" and _swap(area.concealed, old, new) is not None:
                area = replace(area, concealed=_swap(area.concealed, old, new))
                break
    return area


def _beyond_copies(h: Hand) -> str:
    """The first tile the hand holds more copies of than a set has, in words ("" when none)."""
    for t, c in enumerate(h.counts()):
        if c > 4:
            return f"give {c} copies of {T.code(t)}"
    dup = next((f for f in h.flowers if h.flowers.count(f) > 1), None)
    return "" if dup is None else f"give {T.code(dup)} twice"


def _complete(h: Hand) -> bool:
    """Does the hand hold a finished hand's number of tiles (14 and one more per kong) and a winning tile?"""
    kongs = sum(m.kind == KONG for m in h.melds)
    return h.winning_tile is not None and len(h.all_tiles()) == 14 + kongs


def broken(area: PlayerArea, situation, rules: str) -> str:
    """Why the area's hand is not allowed ("" when it is, or when no kind changed could mend it): a tile beyond
    its copies, or a finished hand declared a win without a winning shape."""
    from mjtable.scoring.areas import declared, hands_of
    from mjtable.scoring.engines import engine
    hands, _ = hands_of(area, situation)
    if not hands:
        return ""                              # no hand read: nothing to judge
    beyond = [_beyond_copies(h) for h in hands]
    if all(beyond):
        return beyond[0]
    ready = [h for h in hands if _complete(h)]
    if declared(area) and ready and not any(engine(rules).is_winning_shape(h) for h in ready):
        return "make no winning shape"
    return ""


def doubtful_tiles(reading, n: int = MAX_TILES, min_p: float = MIN_P) -> list:
    """The ``n`` least sure face-up tiles (Placed) of the scored hand's concealed tiles, winning tile and flowers
    that have other kinds to try (of probability ``min_p`` or more)."""
    placed = [p for p in reading.layout.placed if p.seat == reading.seat and p.group in GROUPS
              and p.det.kind != T.BACK and len(choices(p.det, min_p=min_p)) > 1]
    return sorted(placed, key=lambda p: p.det.kind_p)[:n]


def readings(tiles: list, min_p: float = MIN_P) -> list[tuple[float, tuple]]:
    """Every combination of the tiles' choices but the raw one, as (log of its probability over the raw
    reading's, (choice index per tile)), likeliest first."""
    options = [choices(p.det, min_p=min_p) for p in tiles]
    out = []
    for pick in itertools.product(*(range(len(o)) for o in options)):
        if any(pick):
            gain = sum(math.log(max(o[i][1], 1e-9) / max(o[0][1], 1e-9)) for o, i in zip(options, pick) if i)
            out.append((gain, pick))
    return sorted(out, key=lambda gp: -gp[0])


def legal_reading(reading) -> Optional[LegalReading]:
    """The likeliest reading of the scored hand that the rules allow, when the raw reading breaks them and
    changing some of its least sure tiles (doubtful_tiles) mends it; None otherwise."""
    if reading.layout is None or reading.seat is None or reading.hand is None:
        return None
    area = reading.table.player(reading.seat)
    why, min_p, must_win = broken(area, reading.situation, reading.rules), MIN_P, False
    if not why and _under_minimum(reading):
        # a winning shape under 8 points (错和, a penalty): read again at the kinds the classifier nearly chose
        why, min_p, must_win = "score under the 8-point minimum", NEAR_P, True
    if not why:
        return None
    tiles = doubtful_tiles(reading, min_p=min_p)
    options = [choices(p.det, min_p=min_p) for p in tiles]
    for gain, pick in readings(tiles, min_p):
        moves = [(p.group, o[0][0], o[i][0]) for p, o, i in zip(tiles, options, pick) if i]
        new = changed_area(area, moves)
        if broken(new, reading.situation, reading.rules):
            continue
        offer = _offer(reading, new, [(p, o, i) for p, o, i in zip(tiles, options, pick) if i], why, gain)
        if must_win and not (offer.result is not None and offer.result.is_win):
            continue
        return offer
    return None


def _under_minimum(reading) -> bool:
    """Is the scored hand an MCR winning shape declared under the 8-point minimum?"""
    from mjtable.scoring.engines import engine
    r = reading.result
    return (reading.rules == "mcr" and r is not None and not r.is_win and reading.hand is not None
            and engine("mcr").is_winning_shape(reading.hand))


def _offer(reading, area: PlayerArea, picked: list, why: str, gain: float) -> LegalReading:
    """The LegalReading of a changed area: its changes, and its hand and score as the audit scores a winner."""
    from mjtable.scoring.areas import score_area
    sc = score_area(area, reading.situation, reading.rules, reading.profile)
    changes = tuple(Change(p.group, o[0][0], o[i][0], o[0][1], o[i][1]) for p, o, i in picked)
    return LegalReading(changes, why, sc.hand, sc.result, math.exp(gain))


def kong_would_win(reading) -> list[tuple[str, str]]:
    """The seats of a frame whose MCR win, declared under the 8-point minimum (错和, a violation), makes 8 points
    with one of its melded pungs read as a kong, as (seat, what to verify): the penalty would rest on a tile the
    reader may have missed. A kong the hand's other tiles leave no copy for scores no win (more than 4 copies)."""
    from mjtable.scoring.areas import score_area
    if reading.rules != "mcr" or reading.layout is None:
        return []
    out = []
    for seat in dict.fromkeys(f.seat for f in reading.findings
                              if f.case == "under_minimum" and f.severity == "violation" and f.seat is not None):
        area = reading.table.player(seat)
        for i, m in enumerate(area.melds if area is not None else ()):
            if m.meld is None or m.meld.kind != PUNG:
                continue
            kong = MeldOnTable((*m.tiles, m.meld.tile), m.sideways, replace(m.meld, kind=KONG))
            sc = score_area(replace(area, melds=(*area.melds[:i], kong, *area.melds[i + 1:])), reading.situation,
                            reading.rules, reading.profile)
            if sc.result is not None and sc.result.is_win:
                out.append((seat, f"its pung of {T.code(m.meld.tile)} makes 8 points as a kong: check for a fourth "
                                  "tile the reader missed"))
                break
    return out
