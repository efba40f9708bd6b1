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

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Iterator, Optional

from mjtable.scoring.table import (
    TableState,
)

from ..types import Detection

PHONE, OVERHEAD = "phone", "overhead"


@dataclass(frozen=True, slots=True)
class LayoutParams:
    """The layout parser's tunable numbers, today's values as the defaults. Lengths are in units of the local tile
    width w (the short side of an upright tile) unless a field says otherwise; "sure" is a detection's confidence.

        parse(dets, "overhead", params=dataclasses.replace(LayoutParams(), gap_split=0.35))

    A parse (``parse``, ``parse_phone``, ``parse_overhead``) runs with the parameters it is given, which every
    stage reads through ``current_params()``; a stage called outside a parse reads the defaults."""
    # rows and groups (geometry)
    aspect: float = 1.35          # tile height / width; a sideways tile takes aspect * w along the row
    row_split: float = 0.62       # rows: a jump across the rows larger than this (x w) starts a new row
    gap_split: float = 0.30       # groups: free space between neighbours larger than this (x w) starts a new group
    label_power: int = 8          # how fast an unsure orientation label loses its vote
    # duplicates
    dup_iou: float = 0.6          # two boxes overlapping more than this are one tile seen twice
    weak_dup: float = 0.5         # a box less sure than this times a kept one it overlaps ...
    weak_dup_iou: float = 0.35    # ... by this IoU is the same tile seen twice too (not in a phone photo)
    shadow_cover: float = 0.25    # overhead: a face-up box this much over a kept one ...
    shadow_conf: float = 0.3      # ... and less than this times as sure is a duplicate too
    shadow_conf_back: float = 0.5     # a face-down box over a face-down one: less than this times as sure (phone too)
    wrap_cover: float = 0.8       # a box with two others this much inside it, less sure than either's best, wraps them
    straddle_cover: float = 0.6   # a face-up box this much inside two or more surer ones ...
    straddle_conf: float = 0.9    # ... and less than this times as sure as each is a box astride them
    straddle_cover_weak: float = 0.35     # or this much inside them ...
    straddle_conf_weak: float = 0.5       # ... and less than this times as sure
    straddle_conf_back: float = 0.7       # a face-down box: the weak cover and less than this times as sure
    # the phone view
    edge_weak: float = 0.3        # a box on the frame's edge less sure than this and ...
    edge_cut: float = 0.6         # ... narrower than this many times the median box is cut by the frame
    win_gap: float = 1.12         # a hand row one tile too long: its last tile is the winning tile if spaced this
    win_push: float = 0.3        # ... or pushed this far (x w) across the row, nearer or farther, the rest in line
                                  # much wider
    turned: float = 15.0          # degrees: a tile whose edges (Detection.angle) lie this far from the densest
                                  # direction of the photo's tiles lies loose, pushed aside: no part of the hand
    # melds
    rejoin_gap: float = 1.0       # overhead meld rows: groups closer than this (x w) that make melds only together
                                  # are one
    merged_wide: float = 1.15     # a box this much wider than its meld's two upright tiles of one kind lies
                                  # sideways ...
    merged_tall: float = 1.05     # ... and this much taller holds a second tile on it (an added kong's two tiles as
                                  # one box)
    stack_square: float = 0.25    # a much less sure box this squarely (x w) under or on a sideways tile ...
    stack_weak: float = 0.5       # ... and less than this times as sure is the other tile of an added kong, whatever
                                  # its label
    stack_near: float = 0.35      # a tile stacked on a claimed one lies at least this many (smaller) tile widths
                                  # beyond it
    weak_end: float = 0.5         # a box in a row of melds less sure than this times the row's median is weak
    half_gap: float = 0.6         # face-up neighbours in a row closer than this (x tile width) are one tile's
                                  # halves ...
    half_gap_melds: float = 0.75  # ... in an overhead seat's meld area (a sideways tile's halves lie 0.68 apart; no
                                  # hand row)
    lean_min: float = 0.35        # a set where melds lie, no tile sideways: its widest tile is the sideways one if
                                  # this wide ...
    lean_margin: float = 0.25     # ... and this much wider than the next
    repair_ratio: float = 0.02    # a claimed meld whose tiles as read are no chow, pung or kong: the likeliest set
                                  # among the classifier's candidates is taken when it is at least this likely
                                  # relative to the reading (an illegal meld laid down is far rarer than a misread
                                  # tile); the change is reported
    odd_unsure: float = 0.6       # a claimed meld's one odd tile among alike ones, read less surely than this, is
                                  # one of them
    # flowers
    flower_diagonal: float = 6.0  # a flower this near a diagonal (x w) takes the seat of the nearest face-up tile
    flower_reach: float = 2.0     # ... lying this near it (x w) (seats._flowers_by_neighbour)
    weak_flower: float = 0.5      # a flower box less sure than this lying inside a row of suit tiles is not a flower
    flower_beside: float = 0.05   # a tile touching a flower is one if the classifier gives a flower this much
    touch_close: float = 1.15     # a tile at a row's end touches its neighbour: centres this close (x the larger
                                  # scale)
    isolated: float = 4.0         # a lone tile farther than this (x w) from every other tile is not part of the layout
    flower_askew: float = 6.0     # degrees: a phone photo's flower nearer a stray tile than the hand's, its edges
                                  # this far from the hand's, lies loose among tiles pushed aside
    flower_row: float = 1.6       # a flower with another this near (x w) lies in a row of flowers; one without is
                                  # alone, and lies loose ...
    flower_askew_alone: float = 10.0  # ... when its edges lie this far (degrees) from the hand's, a stray tile
                                      # within LayoutParams.isolated widths
    # the overhead view: what is placed, each seat's zones and hand
    table_apart: float = 6.0      # a box of a whole table farther than this many median tile sizes from every
                                  # other box lies apart from the table (an object beside it): not placed ...
    table_apart_min: int = 20     # ... among this many boxes or more
    faint: float = 0.05           # face-up detections less sure than this are not placed ...
    faint_box: float = 0.6        # ... and a white dragon is placed only if its box (the locator's score) is this sure
    faint_flower: float = 0.1     # ... and a flower only if it is this sure ...
    faint_flower_above: float = 0.2   # ... this sure on a table seen from straight above
    faint_back: float = 0.1       # ... and, on a table photographed from a seat, a face-down box only if this sure
    lone_weak: float = 0.45       # a lone face-up box in the meld area less sure than this is not placed
    laid_beyond: float = 0.5      # a seat's outermost row, face up and this much (x w) beyond its rows of backs ...
    scattered: float = 1.4        # ... nor a row of backs spaced this many pitches apart (median): no bar of tiles ...
    laid_loose: int = 2           # ... holding this many face-up tiles in no meld, is its hand laid face up (the walls
                                  # inside) ...
    laid_sure: float = 0.3        # ... when the detector is this sure of them (median): weaker ones are clutter or
                                  # shadows
    paper_beyond_standing: bool = False  # weak clusters beyond a standing hand are paper too (from above: _above)
    paper_gap: float = 1.0        # weak boxes (under laid_sure) this near (x w, box to box) in and beyond a laid hand,
                                  # two or more, none beside a sure box of its row, are paper or a card: not placed
    meld_zone: float = 3.0        # face-up rows within this many tile widths inside the hand row hold melds and
                                  # flowers (1.7 from above; a seat view's depth undone from detected tiles can
                                  # come out a third too deep)
    river_cols: int = 6           # discards in a river row
    river_own: int = 3            # a seat's first river row of this many face-up tiles is its river, wherever it lies
    stray_outside: float = 1.5    # how close (x w) outside the hand row a short row of backs is a stray
    stray_weak: float = 0.75      # a row of backs outside a longer bar, this much less sure than it, is not a hand
    hand_gap: float = 2.5         # tile pitches: a box this far from the rest of the hand row is not part of the hand
    hand_end_gap: float = 1.5     # nor a box at its end this far from the next ...
    hand_end_weak: float = 0.75   # ... and less sure than this times the row's median
    end_off_grid: tuple[float, float] = (1.25, 1.75)  # a box at a hand bar's end this many pitches from the next is
                                                      # off the bar ...
    end_pair: float = 1.25        # ... unless its box is this much bigger than the bar's (two tiles found as one)
    hand_end_weak_extra: float = 0.25     # a box at its end less sure than this times the median, one tile over a
                                          # legal size (0.5 before the detector's back colour check: it dropped real
                                          # end tiles 4 times in 20)
    grid_min_boxes: int = 6       # a hand bar of this many boxes or more is counted by the grid its boxes sit on ...
    grid_pitch: tuple[float, float] = (0.8, 1.25)     # ... among counts one off whose spacing is this close to the
                                                      # seat's pitch ...
    grid_better: float = 0.5      # ... when that grid fits the boxes this much better
    seam_steps: float = 1.14      # a bar whose gaps between boxes each differ from the one before by at most this
    seam_gaps: tuple[float, float] = (0.6, 1.5)   # ... ratio, all this close to the pitch, is one box a tile
    pitch_agree: float = 0.2      # a seat's tile spacing may differ this much from the table's (perspective)
    min_tile_px: float = 10.0     # pixels: a seat's face-up tiles narrower than this (median of the shorter box side)
                                  # are not read (seatcheck)


_CURRENT: ContextVar[LayoutParams] = ContextVar("layout_params", default=LayoutParams())


def current_params() -> LayoutParams:
    """The parameters of the parse under way (the defaults outside one)."""
    return _CURRENT.get()


@contextmanager
def parsing_with(p: Optional[LayoutParams]) -> Iterator[LayoutParams]:
    """Run a parse with the parameters ``p`` (None: those already in force). The parameters are a context
    variable: each thread, and each asyncio task, reads its own."""
    if p is None:
        yield current_params()
        return
    token = _CURRENT.set(p)
    try:
        yield p
    finally:
        _CURRENT.reset(token)


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
    direction_guessed: bool = False     # which way the rows read was a guess (a photo turned about a quarter)
