"""Dataclasses passed from the detector to the layout parser: a tile found (Detection), and a detector's reading
of one frame (Detections: the tiles and the view decided)."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Optional, overload

from mjtable.scoring import tiles as T

UPRIGHT, SIDEWAYS, UPSIDE_DOWN, FACE_DOWN = "upright", "sideways", "upside_down", "face_down"
DOUBT = 0.6                 # a tile read with less than this probability (Detection.kind_p) is doubtful
FLOWER_DOUBT = 0.15         # ... and one read as no flower that the flowers and seasons together get this much
ORIENTATIONS = (UPRIGHT, SIDEWAYS, UPSIDE_DOWN, FACE_DOWN)


def doubt_level(kind: int, p: float, flower_p: float) -> float:
    """The probability a face-up tile read as ``kind`` is judged doubtful by (under a limit, DOUBT at runtime):
    ``p``, the kind's; or 0.0, doubtful at any limit, when it was read as no flower while the flowers and seasons
    together get ``flower_p`` >= FLOWER_DOUBT. A set's flowers are pictures of its own, which the classifier
    spreads over many kinds when it has not seen the set; one read as a suit tile (a bird read as the 1 of
    bamboo) adds a tile to the hand."""
    return 0.0 if likely_flower(kind, flower_p) else p


def likely_flower(kind: int, flower_p: float) -> bool:
    """Whether a tile read as ``kind`` is no flower as read but likely some flower or season (flower_p, the
    flowers' and seasons' probabilities together, at FLOWER_DOUBT or more)."""
    return not T.is_flower(kind) and flower_p >= FLOWER_DOUBT


def is_doubtful(kind: int, p: float, flower_p: float, limit: float = DOUBT) -> bool:
    """Whether a face-up tile read as ``kind`` with probability ``p``, the flowers and seasons together given
    ``flower_p``, is doubtful at the limit (doubt_level)."""
    return doubt_level(kind, p, flower_p) < limit


@dataclass(frozen=True)
class Detection:
    """One tile found in a frame.

    ``box``: (x1, y1, x2, y2) in pixels of the original image.
    ``kind``: tile id 0..41 (see mjtable.scoring.tiles), or mjtable.scoring.tiles.BACK (42) for a face-down tile.
    ``orientation``: upright / sideways / upside_down (relative to the image) / face_down.
    ``candidates``: the classifier's most likely kinds with their probabilities, best first (``kind`` is the
    first unless the locator overruled it); empty when unknown (detections from a file, a one-stage model).
    ``alternatives``: the next two likeliest face kinds after ``kind`` (never ``kind`` itself nor a back) with
    their probabilities however small, best first: what a player is offered to correct a misread tile with;
    empty when unknown (a face-down tile, detections from a file, a one-stage model).
    ``orientation_p``: the classifier's probabilities of (upright, sideways, upside down) for a face-up tile;
    empty when unknown (a face-down tile, detections from a file). A face that looks alike turned a quarter or
    a half (a blank white dragon, the one of dots) leaves them spread.
    ``flower``: the eight flowers and seasons with their probabilities, best first, for a face-up tile however
    unlikely (their sum is the chance that the face is a flower at all: a set's flowers are pictures of its own,
    which the classifier may spread over many kinds); empty when unknown.
    ``angle``: the direction the edges inside the box agree on, degrees in [-45, 45) modulo 90 (vision.level.
    edge_angle): tiles lying in one row share it, a tile pushed aside at an angle does not; None when unknown
    (measured on photos of a hand only; detections from a file).
    """
    box: tuple[float, float, float, float]
    kind: int
    orientation: str
    confidence: float
    candidates: tuple[tuple[int, float], ...] = ()
    orientation_p: tuple[float, float, float] = ()
    alternatives: tuple[tuple[int, float], ...] = ()
    flower: tuple[tuple[int, float], ...] = ()
    angle: Optional[float] = None

    @property
    def center(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)

    @property
    def kind_p(self) -> float:
        """The classifier's probability of the kind the tile was read as (after any correction by the layout
        parser); a detection without candidates (from a file) counts its confidence."""
        if not self.candidates:
            return self.confidence
        return next((q for k, q in self.candidates if k == self.kind), 0.0)

    @property
    def flower_p(self) -> float:
        """The classifier's probability that the face is some flower or season (the sum of ``flower``; 0.0 when
        unknown)."""
        return sum(q for _, q in self.flower)

    @property
    def doubtful(self) -> bool:
        """Whether the tile's reading is doubtful (a face-up tile: is_doubtful; a back never is)."""
        return self.kind != T.BACK and is_doubtful(self.kind, self.kind_p, self.flower_p)

    @property
    def axis_p(self) -> float:
        """Probability that the tile's long axis lies as ``orientation`` says (1.0 when unknown)."""
        if not self.orientation_p or self.orientation not in (UPRIGHT, SIDEWAYS, UPSIDE_DOWN):
            return 1.0
        up, side, down = self.orientation_p
        return side if self.orientation == SIDEWAYS else up + down

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]


@dataclass(frozen=True)
class Detections(Sequence):
    """A detector's reading of one frame, as ultralytics' ``Results`` carries its boxes: the tiles found and the
    view decided once, by the detector, for every later stage to read (vision.locate, vision.trust, the pipeline).
    A sequence of its tiles: ``len(found)``, ``found[i]`` and ``for d in found`` read them.

    ``tiles``: the detections, in the detector's order.
    ``view``: the kind of view the layout reads the frame as, "phone" (a photo of one hand) or "overhead" (a whole
    table): as the detector was told, or guessed from the tiles when told "auto" (vision.views.guess_view).
    ``read_as``: the models that read the frame, "phone", "overhead" or "seat" (a table photographed from a seat);
    None when no model did (detections from a file).
    ``ms``: how long the detector took, milliseconds (not compared).
    ``stretched``: how many times one way the frame had been stretched (a copy resized without keeping its shape,
    vision.images.unstretch) and was read squeezed back; 1.0 when it was read as it is.
    """
    tiles: tuple[Detection, ...]
    view: str
    read_as: Optional[str] = None
    ms: float = field(default=0.0, compare=False)
    stretched: float = 1.0

    def __len__(self) -> int:
        return len(self.tiles)

    @overload
    def __getitem__(self, i: int) -> Detection: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[Detection, ...]: ...

    def __getitem__(self, i):
        return self.tiles[i]

    def __iter__(self) -> Iterator[Detection]:
        return iter(self.tiles)

    @property
    def boxes(self) -> list[tuple[float, float, float, float]]:
        """Each tile's box (x1, y1, x2, y2) in the frame's pixels."""
        return [d.box for d in self.tiles]
