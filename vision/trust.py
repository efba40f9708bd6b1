"""How far a frame's reading can be relied on, seat by seat, and what its findings may claim.

A referee must never be told a false thing with certainty. A finding read from a photo rests on the tiles of its
seat (a finding of the whole table, on every seat); the tiles may be misread, and a tile the detector missed
leaves no trace but a wrong count. So:

* each seat gets a state: ``trusted`` when every face-up tile of it was read surely (p >= DOUBT, and none read as
  no flower is likely some flower or season: types.is_doubtful) at a size the reader is measured to read, from a
  photo as it was taken, and grouped into melds a claim can make (MELD_MIN to MELD_MAX tiles: a hand laid face up
  and read as one long meld is misgrouped, a chow read as two tiles lost one), with no tile read as shown apart
  lying over another (one tile found twice), no chow's sideways tile read turned with p under DOUBT (it says whom
  the chow was claimed from) and no grouping its tiles' places leave open (_grouping_doubts: a tile read as
  exposed beside the discards, a meld that is no set but one without its end tile, a winning tile lying sideways,
  winning tiles at two seats of an MCR table, a hand whose reading direction was a guess), else ``doubtful``
  with the reasons (a copy stretched one way, an export that did not keep the photo's shape, is read squeezed
  back from few pixels a tile: on the held-out real Chinese photos every misread tile was on such a copy,
  scripts/bench_phone.py);
* the frame gets a state: ``unreadable`` when what was found cannot be one player's hand or a table (a few stray
  boxes on a photo of a room, one tile), ``doubtful`` when a seat is, else ``trusted``; with the reasons, and,
  when it is not trusted, how to take the photo again;
* ``gate`` turns each finding that rests on a doubtful seat, an unreadable frame, or a tile count (which a missed
  or doubled tile makes wrong as surely as a player does) into a ``check``: what to verify at the table, and no
  penalty until it is verified; so too, on a whole table read unsurely anywhere, each finding that rests on how
  the table's tiles were grouped (exposed tiles: a near hand laid face up and read as loose tiles).

    trust = assess(layout, read_as="seat", frame=(w, h))
    findings = gate(findings, trust)
"""
from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass, replace
from typing import Optional

from mjtable.scoring import tiles as T
from mjtable.scoring.result import Finding

from .types import DOUBT, FLOWER_DOUBT, likely_flower

TRUSTED, DOUBTFUL, UNREADABLE = "trusted", "doubtful", "unreadable"
CHECK = "check"                 # Finding.severity of a finding that must be verified before any penalty
SMALL_TILE_PX = 12.0            # a seat whose tiles' median short side is under this is read unsurely
GOOD_TILE_PX = 20               # what the retake advice asks for
FEW_TILES = 8                   # a photo of a hand with fewer face-up tiles than this is not a photo of a hand
FEW_TABLE_TILES = 26            # nor a whole table with fewer tiles placed, face up or down, than two hands hold
MELD_MAX = 4                    # no claim exposes more tiles than a kong's four: a "meld" of more is misgrouped
MELD_MIN = 3                    # nor fewer than a chow's three: a "meld" of fewer lost a tile or is misgrouped
OVER_COVER = 0.5                # a tile read as lying apart this much over another tile's box: one tile found twice
BESIDE_RIVER = 1.0              # a tile read as exposed within this many tile widths of a discard may be a discard
AMONG_BACKS = 0.3               # one within this many tile widths of its seat's backs (wall, hand) may be a back
LEFT_OUT_GAP = 0.5              # a sure tile left out of a photographed hand, this close to one of its tiles ...
LEFT_OUT_ACROSS = 0.4           # ... and in line with it (centres this far apart across the row, in tile widths)
LEFT_OUT_SURE = 0.5             # ... (detector confidence at least this) leaves the hand's grouping open
TABLE_VIEWS = ("overhead", "seat")
# findings that rest on how many tiles were found: a tile the reader missed or found twice makes them too
COUNT_CASES = frozenset({"wrong_tile_count", "false_win_miscount"})
# findings that rest on how a whole table's tiles were grouped into hands, melds and rivers: a near hand laid face
# up that was read as loose tiles gives them, so on a table read unsurely anywhere they are checks
GROUPING_KINDS = frozenset({"exposed_tile"})
MANY_VIOLATIONS = 3             # a table frame whose sure findings add up to this many violations is misread likelier
SEAT_VIEW_REASON = "a whole table photographed from a seat: such photos read few hands right (docs/benchmarks.md)"
FACE_GROUPS = ("concealed", "winning", "flower", "discard", "exposed")   # and meld:<i>
CHECK_TILES = "check the doubtful tiles named, or retake straight on, without glare"
CHECK_GROUPS = "check at the table what is named, or retake with each meld, the winning tile and any loose tile apart"
STRETCHED_ADVICE = "send the photo as it was taken, not a copy resized to another shape"
KONG_ADVICE = "lay each kong's four tiles side by side, none covered"
MISCOUNT_REASON = "its tiles count no hand: a tile missed or found twice may have changed what else is read there"


@dataclass(frozen=True)
class SeatTrust:
    """One seat's reading: its state, the face-up tiles read, how many of them doubtful, their size."""
    seat: str
    state: str
    tiles: int
    doubtful: int
    tile_px: float                      # median short side of the seat's boxes, pixels
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class Trust:
    """A frame's reading: its state, why, how to take the photo again, and each seat's state."""
    state: str
    read_as: Optional[str]              # the view the detector read the frame as (phone, overhead, seat)
    reasons: tuple[str, ...] = ()
    advice: tuple[str, ...] = ()
    seats: tuple[SeatTrust, ...] = ()
    kind: Optional[str] = None          # the layout's kind: phone, or overhead for any whole table

    @property
    def table(self) -> bool:
        """A whole table (however the detections came: a file of boxes says no view)."""
        return self.read_as in TABLE_VIEWS or self.kind in TABLE_VIEWS

    def seat(self, name: Optional[str]) -> Optional[SeatTrust]:
        return next((s for s in self.seats if s.seat == name), None)

    def doubting(self, seat: str, reason: str, advice: Optional[str] = None) -> "Trust":
        """This trust with ``seat`` doubtful for ``reason`` too (a reading the rules allow differs from the one
        read: mjtable.vision.legal), and the frame doubtful if it was trusted. ``advice`` joins the retake advice;
        without it, a frame with none is told to check the doubtful tiles."""
        seats = tuple(replace(s, state=DOUBTFUL, reasons=s.reasons + (reason,)) if s.seat == seat else s
                      for s in self.seats)
        state = DOUBTFUL if self.state == TRUSTED else self.state
        if advice is None:
            retake = self.advice or (CHECK_TILES,)
        else:
            retake = self.advice + (advice,) * (advice not in self.advice)
        return replace(self, state=state, seats=seats, reasons=self.reasons + (f"{seat}: {reason}",), advice=retake)

    @property
    def summary(self) -> str:
        """One line: the state, why, and how to retake."""
        text = self.state
        if self.reasons:
            text += ": " + "; ".join(self.reasons)
        if self.advice:
            text += ". Retake: " + "; ".join(self.advice)
        return text

    def to_dict(self) -> dict:
        return {"state": self.state, "read_as": self.read_as, "reasons": list(self.reasons),
                "advice": list(self.advice),
                "seats": [{"seat": s.seat, "state": s.state, "tiles": s.tiles, "doubtful": s.doubtful,
                           "tile_px": round(s.tile_px, 1), "reasons": list(s.reasons)} for s in self.seats]}


def _face_group(group: str) -> bool:
    return group in FACE_GROUPS or group.startswith("meld:")


def _seat_trust(seat: str, dets: list, read_as: Optional[str], stretched: float = 1.0,
                widest_meld: int = 0, narrowest_meld: int = MELD_MIN, over: int = 0, turned: int = 0,
                grouping: tuple[str, ...] = ()) -> SeatTrust:
    faces = [d for d in dets if d.kind != T.BACK]
    doubtful = sum(d.kind_p < DOUBT for d in faces)
    flowerish = sum(likely_flower(d.kind, d.flower_p) and d.kind_p >= DOUBT for d in faces)
    px = statistics.median(min(d.width, d.height) for d in dets) if dets else 0.0
    reasons = []
    if doubtful:
        reasons.append(f"{doubtful} of {len(faces)} tiles read with p under {DOUBT}")
    if flowerish:
        reasons.append(f"{flowerish} of {len(faces)} tiles read as no flower are likely a flower or season "
                       f"(p {FLOWER_DOUBT} or more)")
    if dets and px < SMALL_TILE_PX:
        reasons.append(f"tiles {px:.0f} px across (under {SMALL_TILE_PX:.0f})")
    if read_as == "seat":
        reasons.append(SEAT_VIEW_REASON)
    if stretched > 1.0:
        reasons.append(f"the photo was stretched {stretched:.1f} times one way and is read squeezed back")
    if widest_meld > MELD_MAX:
        reasons.append(f"{widest_meld} tiles read as one meld, which holds {MELD_MAX} at most: its tiles' grouping "
                       "is misread")
    if narrowest_meld < MELD_MIN:
        reasons.append(f"{narrowest_meld} tile(s) read as one meld, which holds {MELD_MIN} at least: a tile of it was "
                       "missed or its grouping is misread")
    if over:
        reasons.append(f"{over} tile(s) read as lying apart lie over another tile: one tile found twice")
    if turned:      # the sideways tile tells the seat a tile was claimed from (a chow from the wrong seat)
        reasons.append(f"{turned} chow(s) whose tile laid sideways, which says whom it was claimed from, is read "
                       f"turned with p under {DOUBT}")
    reasons += grouping
    return SeatTrust(seat, DOUBTFUL if reasons else TRUSTED, len(faces), doubtful + flowerish, px, tuple(reasons))


def assess(layout, read_as: Optional[str] = None, frame: Optional[tuple[int, int]] = None,
           stretched: float = 1.0) -> Optional[Trust]:
    """The trust of a frame's layout (mjtable.vision.layout.Layout); None when the layout carries no detections
    (a hand typed in notation, a video's settled table) and there is nothing to judge the tiles by. ``read_as``:
    the view the detector read the frame as; ``frame``: its (width, height); ``stretched``: how many times one
    way the frame had been stretched (types.Detections.stretched; 1.0: as taken)."""
    if layout is None or not layout.placed:
        return None
    by_seat: dict[str, list] = {}
    melds: dict[tuple[str, str], list] = {}      # (seat, meld:<i>) -> its placed tiles
    for p in layout.placed:
        if p.seat is not None and _face_group(p.group):
            by_seat.setdefault(p.seat, []).append(p.det)
        if p.seat is not None and p.group.startswith("meld:"):
            melds.setdefault((p.seat, p.group), []).append(p)
    widest: Counter = Counter()           # each seat's longest meld
    narrowest: dict[str, int] = {}        # and its shortest
    turned: Counter = Counter()           # and its chows whose sideways tile's turn the reader doubts (that tile
    for (s, _), ps in melds.items():      # says whom the chow was claimed from: the left player or not)
        widest[s] = max(widest[s], len(ps))
        narrowest[s] = min(narrowest.get(s, MELD_MIN), len(ps))
        if len({p.det.kind for p in ps}) > 1:
            turned[s] += sum(p.sideways and p.det.axis_p < DOUBT for p in ps)
    over = _lying_over(layout.placed)
    grouping = _grouping_doubts(layout)
    seats = tuple(_seat_trust(s, dets, read_as, stretched, widest[s], narrowest.get(s, MELD_MIN), over[s], turned[s],
                              tuple(grouping.get(s, ())))
                  for s, dets in by_seat.items())
    reasons: list[str] = []
    faces = sum(s.tiles for s in seats)
    placed = sum(p.group not in ("duplicate", "unplaced") for p in layout.placed)
    if layout.kind not in TABLE_VIEWS and faces < FEW_TILES:
        state = UNREADABLE
        reasons.append(f"{faces} face-up tile(s) found: too few for a hand")
    elif layout.kind in TABLE_VIEWS and placed < FEW_TABLE_TILES:
        state = UNREADABLE
        reasons.append(f"{placed} tile(s) placed: too few for a table, which shows four hands")
    else:
        doubtful = [s for s in seats if s.state != TRUSTED]
        state = DOUBTFUL if doubtful or not seats else TRUSTED
        reasons += frame_reasons(doubtful, len(seats))
    advice = () if state == TRUSTED else _advice(seats, read_as, frame, state, stretched)
    return Trust(state, read_as, tuple(reasons), advice, seats, layout.kind)


def _lying_over(placed) -> Counter:
    """Each seat's tiles read as lying face up apart (group "exposed") whose box lies OVER_COVER or more over
    another placed tile's: tiles on a table lie side by side, so such a box is a tile found twice (a box between
    two alike tiles of a river), not a tile shown."""
    out: Counter = Counter()
    others = [q for q in placed if q.group not in ("duplicate", "unplaced")]
    for p in placed:
        if p.group != "exposed" or p.seat is None:
            continue
        x0, y0, x1, y1 = p.det.box
        area = max((x1 - x0) * (y1 - y0), 1e-9)
        for q in others:
            if q is p:
                continue
            if _overlap(p.det.box, q.det.box) / area >= OVER_COVER:
                out[p.seat] += 1
                break
    return out


def _box_gap(a, b) -> float:
    """The free space between two boxes, the larger of its two axes' (0 when they touch or overlap)."""
    return max(0.0, max(a[0], b[0]) - min(a[2], b[2]), max(a[1], b[1]) - min(a[3], b[3]))


def _grouping_doubts(layout) -> dict[str, list[str]]:
    """Each seat's groupings that the tiles' places leave open, where a misplaced tile would give a sure
    finding: a tile read as exposed lying beside the seat's discards (BESIDE_RIVER: a discard off its slot), a
    tile read as exposed lying against the seat's backs (a back misread as a face), a
    meld that is no set but one without a tile at its end (a loose tile lying close to it), a winning tile lying
    sideways (as a meld's claimed tile does), a winning tile set apart at two seats or more of an MCR table (a
    hand has one winner, MCR 2006 3.7.2 4 和牌者; a hand laid face up and spread in groups, its last group one
    tile, reads like a win), a sure tile left out of a photographed hand lying in line against it
    (_left_out_beside), and melds with a tile laid sideways in a hand whose reading direction was a guess
    (Layout.direction_guessed: the photo turned about a quarter; the sideways tile's place says whom the meld was
    claimed from)."""
    from mjtable.scoring.areas import read_meld
    from mjtable.scoring.table import MeldOnTable
    out: dict[str, list[str]] = {}
    discards = _by_seat(layout.placed, lambda p: p.group == "discard")
    backs = _by_seat(layout.placed, lambda p: p.det.kind == T.BACK and p.group in ("wall", "concealed"))
    for seat, n in _exposed_near(layout.placed, discards, BESIDE_RIVER).items():
        out.setdefault(seat, []).append(f"{n} tile(s) read as exposed lie beside the discards: a discard off its "
                                        "place?")
    for seat, n in _inside_rivers(layout.placed, discards).items():
        out.setdefault(seat, []).append(f"{n} tile(s) read as exposed lie inside the rivers, nearer the table's "
                                        "middle: a discard just thrown?")
    for seat, n in _exposed_near(layout.placed, backs, AMONG_BACKS).items():
        out.setdefault(seat, []).append(f"{n} tile(s) read face up lie in a row of face-down tiles: a back misread?")
    players = layout.table.players if layout.table is not None else ()
    for a in players:
        for i, m in enumerate(a.melds):
            n = len(m.tiles)
            if m.meld is not None or n not in (MELD_MAX, MELD_MAX + 1) or read_meld(m).meld is not None:
                continue
            ends = (MeldOnTable(m.tiles[1:], None if m.sideways in (None, 0) else m.sideways - 1),
                    MeldOnTable(m.tiles[:-1], None if m.sideways == n - 1 else m.sideways))
            if any(read_meld(e).meld is not None for e in ends):
                out.setdefault(a.seat, []).append(f"meld {i + 1} is no set, but one without a tile at its end: "
                                                  "a loose tile lying against it?")
    for p in layout.placed:
        if p.group == "winning" and p.sideways and p.seat is not None:
            out.setdefault(p.seat, []).append("the winning tile lies sideways, as a meld's claimed tile does")
    winners = [a.seat for a in players if a.winning_tile is not None]
    if len(winners) > 1 and layout.table.rules == "mcr":     # Sichuan lets several win (一炮多响)
        for seat in winners:
            out.setdefault(seat, []).append(f"{len(winners)} seats read with a winning tile set apart, and an MCR "
                                            "hand has one winner (和牌者): a tile set apart misread as a winning "
                                            "tile?")
    for seat, n in _twice_otherwise(layout.placed).items():
        out.setdefault(seat, []).append(f"{n} box(es) read surely as another kind lie over its tiles and were taken "
                                        "for the same tile seen twice: one tile or two?")
    if layout.kind not in TABLE_VIEWS:
        left = _left_out_beside(layout.placed, layout.angle)
        if left:
            out.setdefault("self", []).append(f"{left} tile(s) lying against the hand were left out of it: which "
                                              "group each belongs to is open")
    if getattr(layout, "direction_guessed", False):      # whom a meld was claimed from rests on it
        for seat in dict.fromkeys(p.seat for p in layout.placed
                                  if p.seat is not None and p.sideways and p.group.startswith("meld:")):
            out.setdefault(seat, []).append("which way the hand reads, which says whom each meld was claimed "
                                            "from, is a guess: the photo is turned about a quarter")
    return out


def _by_seat(placed, keep) -> dict[str, list]:
    """The detections of each seat's placed tiles that ``keep`` keeps."""
    out: dict[str, list] = {}
    for p in placed:
        if p.seat is not None and keep(p):
            out.setdefault(p.seat, []).append(p.det)
    return out


def _exposed_near(placed, of: dict[str, list], widths: float) -> Counter:
    """Each seat's tiles read as exposed lying within ``widths`` tile widths of one of the seat's ``of``."""
    return Counter(p.seat for p in placed if p.group == "exposed" and p.seat is not None
                   and any(_box_gap(p.det.box, q.box) <= widths * min(p.det.width, p.det.height)
                           for q in of.get(p.seat, ())))


def _inside_rivers(placed, discards: dict[str, list]) -> Counter:
    """A whole table: each seat's tiles read as exposed that lie nearer the table's middle (the mean of its placed
    tiles) than the seat's discards (or, with none yet, than any seat's): a discard just thrown lies there before
    it is put in its river."""
    seated = [p.det.center for p in placed if p.seat is not None]
    every = [d for ds in discards.values() for d in ds]
    out: Counter = Counter()
    if not seated or not every:
        return out
    cx, cy = sum(c[0] for c in seated) / len(seated), sum(c[1] for c in seated) / len(seated)

    def reach(d) -> float:
        return math.hypot(d.center[0] - cx, d.center[1] - cy)
    for p in placed:
        if p.group == "exposed" and p.seat is not None:
            if reach(p.det) < min(reach(d) for d in discards.get(p.seat) or every):
                out[p.seat] += 1
    return out


def _twice_otherwise(placed) -> Counter:
    """Each seat's tiles over which lies a box dropped as the same tile seen twice (group "duplicate") that was read
    surely (p >= DOUBT) as another face-up kind: two tiles side by side whose boxes grew over each other lose one
    so, and what is left (a chow of two tiles read as tiles exposed) may carry a sure finding."""
    out: Counter = Counter()
    kept = [q for q in placed if q.seat is not None]
    for p in placed:
        d = p.det
        if p.group != "duplicate" or d.kind == T.BACK or d.kind_p < DOUBT or not kept:
            continue
        q = max(kept, key=lambda q: _overlap(d.box, q.det.box))
        if _overlap(d.box, q.det.box) > 0 and q.det.kind not in (d.kind, T.BACK):
            out[q.seat] += 1
    return out


def _overlap(a, b) -> float:
    """The area two boxes share."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _left_out_beside(placed, angle: float) -> int:
    """A photo of a hand: the surely read face-up tiles left out of it (not placed: a loose tile, one taken as lying
    apart) that lie in line with a tile of the hand and next to it (the row's direction ``angle``, degrees: across
    it within LEFT_OUT_ACROSS tile widths, along it within LEFT_OUT_GAP of touching): a claimed tile a little off
    its chow, whose partners the hand then took."""
    from .layout.base import current_params
    aspect = current_params().aspect          # a tile's height over its width (a sideways tile's length)
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    hand = [p.det for p in placed if p.seat is not None and p.group != "flower"]
    n = 0
    for p in placed:
        d = p.det
        if p.group != "unplaced" or d.kind == T.BACK or T.is_flower(d.kind) or d.confidence < LEFT_OUT_SURE:
            continue
        w = min(d.width, d.height)
        for q in hand:
            dx, dy = d.center[0] - q.center[0], d.center[1] - q.center[1]
            along, across = abs(dx * c + dy * s), abs(-dx * s + dy * c)
            if across <= LEFT_OUT_ACROSS * w and along <= (aspect + 1) / 2 * w + LEFT_OUT_GAP * w:
                n += 1
                break
    return n


def frame_reasons(doubtful: list[SeatTrust], n_seats: int) -> list[str]:
    """The doubtful seats' reasons, each seat's own ones under its name and the ones every doubtful seat shares
    (a whole table photographed from a seat) said once, under the seats they apply to."""
    shared = [r for r in doubtful[0].reasons if all(r in s.reasons for s in doubtful)] if len(doubtful) > 1 else []
    out = [f"{s.seat}: {'; '.join(r for r in s.reasons if r not in shared)}" for s in doubtful
           if any(r not in shared for r in s.reasons)]
    if shared:
        who = "every seat" if len(doubtful) == n_seats else ", ".join(s.seat for s in doubtful)
        out.append(f"{who}: {'; '.join(shared)}")
    return out


def unsure_seats(trust: Trust) -> str:
    """The seats read unsurely, in words: "the left seat was", "the self, left and across seats were"."""
    names = [s.seat for s in trust.seats if s.state != TRUSTED]
    if not names:
        return "no seat was read"
    if len(names) == 1:
        return f"the {names[0]} seat was read unsurely"
    return f"the {', '.join(names[:-1])} and {names[-1]} seats were read unsurely"


def _advice(seats: tuple[SeatTrust, ...], read_as: Optional[str], frame, state: str,
            stretched: float = 1.0) -> tuple[str, ...]:
    """How to take the photo again so that it reads: the photo as taken, closer, landscape, or the near hand
    only."""
    out = [STRETCHED_ADVICE] if stretched > 1.0 else []
    if state == UNREADABLE:
        out.append("photograph the whole hand from above, in focus, filling most of the frame")
    small = [s for s in seats if s.tiles and s.tile_px < GOOD_TILE_PX]
    if small:
        out.append(f"come closer: tiles {min(s.tile_px for s in small):.0f} px across read unsurely, "
                   f"{GOOD_TILE_PX} px or more read well")
    if read_as in TABLE_VIEWS and frame is not None and frame[1] > frame[0]:
        out.append("hold the phone landscape: an upright photo of a table leaves each tile half the size")
    if read_as == "seat":
        out.append("or photograph the near hand only, from above")
    if not out and any(s.doubtful for s in seats):
        out.append(CHECK_TILES)
    if not out and any(s.state != TRUSTED for s in seats):
        out.append(CHECK_GROUPS)
    return tuple(out)


def _checked(f: Finding, why: str) -> Finding:
    return replace(f, severity=CHECK, message=f"{f.message} — to check first: {why}",
                   penalty=f"no penalty until verified; if confirmed: {f.penalty}")


def gate(findings: list[Finding], trust: Optional[Trust]) -> list[Finding]:
    """The findings with each one that rests on what may be misread turned into a check (see the module's
    docstring); all of them as they are when ``trust`` is None (nothing read from a frame). On a whole table,
    MANY_VIOLATIONS or more violations left at once are all checks too: tiles grouped wrongly (a river read as
    melds, a hand as exposed tiles) give many at once, a game played so hardly ever does."""
    if trust is None:
        return list(findings)
    out = _gate_each(findings, trust)
    many = [f for f in out if f.severity == "violation"]
    if trust.table and len(many) >= MANY_VIOLATIONS:
        why = f"{len(many)} violations at once on one table: a table read wrongly is likelier than a game played so"
        out = [_checked(f, why) if f.severity == "violation" else f for f in out]
    return out


def _gate_each(findings: list[Finding], trust: Trust) -> list[Finding]:
    """Each finding that rests on a doubtful seat, an unreadable frame or a tile count made a check."""
    out = []
    for f in findings:
        seat = trust.seat(f.seat)
        if f.case in COUNT_CASES:
            why = "count the tiles: a tile the reader missed or read twice gives the same finding"
        elif trust.state == UNREADABLE:
            why = "the photo could not be read as a hand"
        elif trust.table and f.kind in GROUPING_KINDS and trust.state != TRUSTED:
            why = f"it rests on how the table's tiles were grouped, and {unsure_seats(trust)} (the reading says why)"
        elif f.seat is None and trust.state != TRUSTED:
            why = f"it rests on tiles of every seat, and {unsure_seats(trust)} (the reading says why)"
        elif seat is not None and seat.state != TRUSTED:
            why = f"the {seat.seat} seat was read unsurely ({'; '.join(seat.reasons)})"
        else:
            out.append(f)
            continue
        out.append(_checked(f, why))
    return out
