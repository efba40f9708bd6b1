"""Dataclasses passed from the detector to the layout parser."""
from __future__ import annotations

from dataclasses import dataclass

UPRIGHT, SIDEWAYS, UPSIDE_DOWN, FACE_DOWN = "upright", "sideways", "upside_down", "face_down"
ORIENTATIONS = (UPRIGHT, SIDEWAYS, UPSIDE_DOWN, FACE_DOWN)


@dataclass(frozen=True)
class Detection:
    """One tile found in a frame.

    ``box``: (x1, y1, x2, y2) in pixels of the original image.
    ``kind``: tile id 0..41 (see scoring.tiles), or scoring.tiles.BACK (42) for a face-down tile.
    ``orientation``: upright / sideways / upside_down (relative to the image) / face_down.
    ``candidates``: the classifier's most likely kinds with their probabilities, best first (``kind`` is the
    first unless the locator overruled it); empty when unknown (detections from a file, a one-stage model).
    """
    box: tuple[float, float, float, float]
    kind: int
    orientation: str
    confidence: float
    candidates: tuple[tuple[int, float], ...] = ()

    @property
    def center(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]
