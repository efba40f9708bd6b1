"""The kinds of view a frame is read as, decided once per frame by the detector that reads it.

The layout reads a frame as a photo of one player's hand ("phone") or as a whole table ("overhead"). Told
"auto", a detector decides from the frame's tiles (``guess_view``); either way the view travels with the tiles in
its result (``types.Detections``, built by ``decided``), and no later stage guesses it again.

    found = decided(tiles, "auto", read_as="overhead")      # Detections(tiles, view="overhead", ...)

The detector's routing reads a locator's boxes through the predicates here too (``table_like``, ``many_tiles``,
``small_tiles``), and the view router's thresholds (``ROUTER_OVERHEAD``, ``ROUTER_SEAT``, ``says_seat``) live beside
them.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Optional

import numpy as np
from mjtable.errors import UsageError, shown

from .level import HAND_DOMINANT, off_densest
from .types import FACE_DOWN, SIDEWAYS, Detection, Detections

KINDS = ("auto", "phone", "overhead")   # the views a caller may ask for ("auto": the detector decides)
TABLE_TILES = 30          # a whole table shows at least this many tiles (a photo of one hand about 26 at most)
ROUTE_BACKS = 12          # ... and at least this many face-down tiles (walls, hands seen from behind)
ROUTE_CONF = 0.25         # a locator's boxes at least this sure decide whether a frame looks like a whole table
SMALL_TILE = 16.0         # sure boxes whose median short side is under this many px of the general locator's
                          # input are too small for a photo of a hand (its tiles measure 22 px or more there):
                          # the frame may be a whole table seen from afar, and the overhead locator looks
ROUTER_OVERHEAD = 0.5     # the view router's probability of an overhead view at which the overhead locator runs first
ROUTER_SEAT = 0.5         # a whole table the router calls a seat view with this probability is read by the seat
                          # models though its boxes show too little perspective (a three-way router)


class UnknownKind(UsageError, ValueError):
    """A view kind other than auto, phone or overhead."""


def check_kind(kind: str) -> str:
    """The kind of view asked for, refused (UnknownKind, a usage error) unless auto, phone or overhead."""
    if kind not in KINDS:
        raise UnknownKind(f"unknown frame kind {shown(kind)} (auto, phone or overhead)")
    return kind


def overhead_like(n_tiles: int, n_faces: int, n_across: int) -> bool:
    """An overhead frame holds a whole table: many tiles, and face-up tiles lying across as well as along
    (the side seats' rivers and melds). A phone photo of one hand has at most about 26 tiles."""
    return n_tiles >= TABLE_TILES and n_faces > 0 and n_across >= 0.15 * n_faces


def guess_view(dets: list[Detection]) -> str:
    """phone or overhead, from a frame's detections: an overhead frame holds a whole table (overhead_like), or
    a table's many tiles with ROUTE_BACKS or more face down (walls, standing hands: a photo of one hand shows a
    concealed kong's backs at most), though its side seats show little face up (no melds, a discard or two).
    Tiles whose edges (Detection.angle, known for a photo of a hand) lie turned from the direction most of them
    agree on are loose tiles pushed aside (as the phone layout sets them apart): they are no table's."""
    loose = {id(d) for d in _turned(dets)}
    dets = [d for d in dets if id(d) not in loose]
    faces = [d for d in dets if d.orientation != FACE_DOWN]
    across = sum(d.orientation == SIDEWAYS for d in faces)
    table = len(dets) >= TABLE_TILES and len(dets) - len(faces) >= ROUTE_BACKS
    return "overhead" if table or overhead_like(len(dets), len(faces), across) else "phone"


def _turned(dets: list[Detection]) -> list[Detection]:
    """The detections whose edges lie more than LayoutParams.turned degrees from the densest direction of those
    whose edges are known (at least five), found as the phone layout finds it (each weighed by its confidence, the
    fullest window taken where it dominates); none without such a direction."""
    from .layout.base import LayoutParams
    limit = LayoutParams().turned
    off = off_densest([d.angle for d in dets], limit, [d.confidence for d in dets], dominant=HAND_DOMINANT)
    return [] if off is None else [d for d, o in zip(dets, off) if o > limit]


def decided(tiles: Iterable[Detection], kind: str, read_as: Optional[str] = None, ms: float = 0.0,
            stretched: float = 1.0) -> Detections:
    """A detector's result: the tiles with their view decided, as told (``kind`` phone or overhead) or, told
    "auto", guessed from the tiles (guess_view); UnknownKind for any other kind. ``read_as``: the models that read
    the frame (None: none did); ``ms``: how long the detector took; ``stretched``: Detections.stretched."""
    tiles = tuple(tiles)
    view = check_kind(kind) if kind != "auto" else guess_view(list(tiles))
    return Detections(tiles, view, read_as, ms, stretched)


def router_seat_p(probs) -> Optional[float]:
    """A three-way view router's probability of a seat view from its probabilities (None for a two-way router's,
    or none)."""
    return None if probs is None or len(probs) < 3 else float(probs[2])


def says_seat(seat_p: Optional[float]) -> bool:
    """Does the view router call the frame a seat view (its probability ROUTER_SEAT or more)?"""
    return seat_p is not None and seat_p >= ROUTER_SEAT


def table_like(found) -> bool:
    """Do a locator's boxes (locate()'s output) look like a whole table? overhead_like on the sure boxes
    (sideways = wider than tall), and at least ROUTE_BACKS of them face down: the overhead locator knows whole
    tables, with walls and standing hands; a close-up of many face-up tiles (a photo of several hands, a river)
    stays with the general locator, which has seen real ones."""
    sure = found[1] >= ROUTE_CONF        # at a low threshold (for AP) weak boxes would make any frame "many"
    boxes, faces = found[0][sure], found[2][sure] == 0
    across = int(((boxes[:, 2] - boxes[:, 0]) > (boxes[:, 3] - boxes[:, 1]))[faces].sum())
    n_faces = int(faces.sum())
    return len(boxes) - n_faces >= ROUTE_BACKS and overhead_like(len(boxes), n_faces, across)


def many_tiles(found) -> bool:
    """Do a locator's sure boxes number a table's (TABLE_TILES or more, ROUTE_BACKS of them face down)?"""
    sure = found[1] >= ROUTE_CONF
    return int(sure.sum()) >= TABLE_TILES and int((found[2][sure] != 0).sum()) >= ROUTE_BACKS


def small_tiles(found, scale: float) -> bool:
    """Are a locator's sure boxes (locate()'s output) none, or small: their median short side times ``scale``
    (the locator's input over the frame's longer side) under SMALL_TILE px?"""
    b = found[0][found[1] >= ROUTE_CONF]
    return not len(b) or float(np.median(np.minimum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]))) * scale < SMALL_TILE
