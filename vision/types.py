"""Dataclasses passed from the detector to the layout parser."""
from __future__ import annotations

from dataclasses import dataclass

UPRIGHT, SIDEWAYS, UPSIDE_DOWN, FACE_DOWN = "upright", "sideways", "upside_down", "face_down"
DOUBT = 0.6                 # a tile read with less than this probability (Detection.kind_p) is doubtful
ORIENTATIONS = (UPRIGHT, SIDEWAYS, UPSIDE_DOWN, FACE_DOWN)


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
    """
    box: tuple[float, float, float, float]
    kind: int
    orientation: str
    confidence: float
    candidates: tuple[tuple[int, float], ...] = ()
    orientation_p: tuple[float, float, float] = ()
    alternatives: tuple[tuple[int, float], ...] = ()

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
