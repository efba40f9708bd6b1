"""Which seats of a whole-table frame could not be read, and why: a note per seat, never a silent gap.

A seat is not read when no tile lies on its side of the table, or when its tiles are too small in the frame for
the crop classifier (it reads a tile's box resized to 64 px; overhead frames 640 px wide, whose tiles are about
15 px wide, are the smallest measured to read well). A seat is read with doubt when most of its face-up tiles
are read with a probability under DOUBT (the doubtful tile's threshold).
"""
from __future__ import annotations

import statistics

from mjtable.scoring import tiles as T
from mjtable.scoring.table import SEATS

from ..types import DOUBT
from .base import Placed, current_params

def seat_notes(placed: list[Placed]) -> list[str]:
    """One note for each seat that cannot be read or is read with doubt (none for a seat read well)."""
    lp = current_params()
    notes = []
    for seat in SEATS:
        mine = [p for p in placed if p.seat == seat]          # duplicates and unplaced boxes have no seat
        if not mine:
            notes.append(f"seat {seat} not read: no tile found on its side of the table")
            continue
        up = [p.det for p in mine if p.det.kind != T.BACK]
        if not up:
            continue                                   # a hand seen from behind and no discard yet: nothing to read
        px = statistics.median(min(d.box[2] - d.box[0], d.box[3] - d.box[1]) for d in up)
        if px < lp.min_tile_px:
            notes.append(f"seat {seat} not read: its tiles are {px:.0f} px across in the frame, under "
                         f"{lp.min_tile_px:.0f} px (shoot closer, or at a higher resolution)")
            continue
        unsure = [d for d in up if d.kind_p < DOUBT]
        if 2 * len(unsure) > len(up):
            notes.append(f"seat {seat} read with doubt: {len(unsure)} of its {len(up)} face-up tiles are read "
                         f"with less than {DOUBT:.0%} probability")
    return notes
