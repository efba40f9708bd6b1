"""Layout parser: tile detections -> what lies on the table (mjtable.scoring.table.TableState).

Two kinds of frame:

* ``phone``: a photo of one player's finished hand. Concealed row, melds (grouped by gaps and read by
  the sideways tile: left = from the left player, middle = across, right = right player; face-down tiles =
  concealed kong), the winning tile set apart, flowers.
* ``overhead``: a camera above the table. Four seats (self at the bottom of the frame, then right, across,
  left), each with melds, flowers, the discard river (rows of 6, read left to right from that player's
  point of view), the hand (face up or face down) and face-up tiles lying where they should not (exposed).

Everything works on box geometry only, so it is testable without a model:

1. duplicates (IoU > 0.6) are dropped (and reported);
2. the dominant row direction is estimated from nearest-neighbour vectors between tile centres
   (doubled angle for a phone photo, quadrupled for an overhead frame) and refined by fitting lines through
   the rows; all further work happens in that rotated frame (u along the rows, v across them), so a
   rotated or mildly perspective photo reads like a straight one;
3. rows are clusters in v, groups are runs in u split where the gap exceeds a fraction of the local tile width
   (local scale = sqrt of box area, which is the same for an upright and a sideways tile at any angle);
4. a tile is *sideways* when it differs from the majority of its row: by its orientation label, by its box
   shape in the rotated frame, and (near 45 degrees where both fade) by the spacing to its neighbours.

Whatever cannot be placed is named in ``TableState.unplaced`` rather than guessed silently.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from mjtable.scoring.table import (
    TableState,
)

from ..types import Detection

PHONE, OVERHEAD = "phone", "overhead"


# Tunables, in units of the local tile width w (the short side of an upright tile).
ASPECT = 1.35          # tile height / width; a sideways tile takes ASPECT*w along the row


WEAK_DUP = 0.5         # a box less sure than this times a kept one it overlaps ...


WEAK_DUP_IOU = 0.35    # ... by this IoU is the same tile seen twice too


SHADOW_COVER = 0.25    # overhead: a face-up box this much over a kept one ...


SHADOW_CONF = 0.3      # ... and less than this times as sure is a duplicate too


SHADOW_CONF_BACK = 0.5  # a face-down box over a face-down one: less than this times as sure (phone too)


WRAP_COVER = 0.8       # a box with two others this much inside it, less sure than either's best, wraps them


DUP_IOU = 0.6          # two boxes overlapping more than this are one tile seen twice


ROW_SPLIT = 0.62       # rows: a jump in v larger than this (x w) starts a new row


LONE_WEAK = 0.45       # overhead: a lone face-up box in the meld area less sure than this is not placed


REJOIN_GAP = 1.0       # overhead meld rows: groups closer than this (x w) that make melds only together are one


GAP_SPLIT = 0.30       # groups: free space between neighbours larger than this (x w) starts a new group


WIN_GAP = 1.12         # a hand row one tile too long: its last tile is the winning tile if spaced this much wider


LABEL_POWER = 8      # how fast an unsure orientation label loses its vote


STRADDLE_COVER = 0.6   # a face-up box this much inside two or more surer ones ...


STRADDLE_CONF = 0.9    # ... and less than this times as sure as each is a box astride them


STRADDLE_COVER_WEAK = 0.35  # or this much inside them ...


STRADDLE_CONF_WEAK = 0.5    # ... and less than this times as sure


STRADDLE_CONF_BACK = 0.7    # a face-down box: the weak cover and less than this times as sure


MERGED_WIDE = 1.15      # a box this much wider than its meld's two upright tiles of one kind lies sideways ...


MERGED_TALL = 1.05      # ... and this much taller holds a second tile on it (an added kong's two tiles as one box)


STACK_SQUARE = 0.25     # a much less sure box this squarely (x w) under or on a sideways tile ...


STACK_WEAK = 0.5        # ... and less than this times as sure is the other tile of an added kong, whatever its label


STACK_NEAR = 0.35        # a tile stacked on a claimed one lies at least this many (smaller) tile widths beyond it


WEAK_END = 0.5         # a box in a row of melds less sure than this times the row's median is weak


HALF_GAP = 0.6         # face-up neighbours in a row closer than this (x tile width) are one tile's halves ...


HALF_GAP_MELDS = 0.75  # ... in an overhead seat's meld area (a sideways tile's halves lie 0.68 apart; no hand row)


FAINT = 0.05            # overhead: face-up detections less sure than this are not placed ...


FAINT_BOX = 0.6         # ... and a white dragon is placed only if its box (the locator's score) is this sure


LEAN_MIN = 0.35        # a set where melds lie, no tile sideways: its widest tile is the sideways one if this wide ...


LEAN_MARGIN = 0.25     # ... and this much wider than the next


WEAK_FLOWER = 0.5       # a flower box less sure than this lying inside a row of suit tiles is not a flower


FLOWER_BESIDE = 0.05    # a tile touching a flower is one if the classifier gives a flower this much


TOUCH_CLOSE = 1.15      # a tile at a row's end touches its neighbour: centres this close (x the larger scale)


ISOLATED = 4.0         # a lone tile farther than this (x w) from every other tile is not part of the layout


LAID_BEYOND = 0.5      # overhead: a seat's outermost row, face up and this much (x w) beyond its rows of backs ...


LAID_LOOSE = 2         # ... holding this many face-up tiles in no meld, is its hand laid face up (the walls inside) ...


LAID_SURE = 0.3        # ... when the detector is this sure of them (median): weaker ones are clutter or shadows


class LayoutError(ValueError):
    """The detections cannot be read as a table at all (e.g. no tiles)."""


class HandError(ValueError):
    """A player area cannot be turned into a Hand (unreadable meld, no tiles ...)."""


@dataclass
class Placed:
    """Where one detection ended up (for annotation and debugging)."""
    det: Detection
    seat: Optional[str]
    group: str            # concealed | meld:<i> | winning | flower | discard | wall | exposed | unplaced | duplicate
    sideways: bool = False


@dataclass
class Layout:
    table: TableState
    placed: list[Placed]
    kind: str
    angle: float          # reading direction of the self row, degrees, image coordinates (y down)
