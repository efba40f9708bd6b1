"""The kinds of view a frame is read as, decided once per frame by the detector that reads it.

The layout reads a frame as a photo of one player's hand ("phone") or as a whole table ("overhead"). Told
"auto", a detector decides from the frame's tiles (``guess_view``); either way the view travels with the tiles in
its result (``types.Detections``, built by ``decided``), and no later stage guesses it again.

    found = decided(tiles, "auto", read_as="overhead")      # Detections(tiles, view="overhead", ...)
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Optional

from mjtable.errors import UsageError, shown

from .types import FACE_DOWN, SIDEWAYS, Detection, Detections

KINDS = ("auto", "phone", "overhead")   # the views a caller may ask for ("auto": the detector decides)
TABLE_TILES = 30          # a whole table shows at least this many tiles (a photo of one hand about 26 at most)
ROUTE_BACKS = 12          # ... and at least this many face-down tiles (walls, hands seen from behind)


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
    concealed kong's backs at most), though its side seats show little face up (no melds, a discard or two)."""
    faces = [d for d in dets if d.orientation != FACE_DOWN]
    across = sum(d.orientation == SIDEWAYS for d in faces)
    table = len(dets) >= TABLE_TILES and len(dets) - len(faces) >= ROUTE_BACKS
    return "overhead" if table or overhead_like(len(dets), len(faces), across) else "phone"


def decided(tiles: Iterable[Detection], kind: str, read_as: Optional[str] = None, ms: float = 0.0,
            stretched: float = 1.0) -> Detections:
    """A detector's result: the tiles with their view decided, as told (``kind`` phone or overhead) or, told
    "auto", guessed from the tiles (guess_view); UnknownKind for any other kind. ``read_as``: the models that read
    the frame (None: none did); ``ms``: how long the detector took; ``stretched``: Detections.stretched."""
    tiles = tuple(tiles)
    view = check_kind(kind) if kind != "auto" else guess_view(list(tiles))
    return Detections(tiles, view, read_as, ms, stretched)
