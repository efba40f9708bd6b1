"""A whole-table frame says which seat it could not read, and why (vision.layout.seatcheck)."""
from dataclasses import replace
from pathlib import Path

import pytest
from mjtable.scoring import tiles as T
from mjtable.vision.detector import TileDetector
from mjtable.vision.images import load_image
from mjtable.vision.layout import LayoutParams
from mjtable.vision.layout.overhead import parse_overhead
from mjtable.vision.layout.seatcheck import seat_notes

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def table():
    dets = TileDetector().detect(load_image(ROOT / "examples" / "overhead.jpg"), "overhead")
    return dets, parse_overhead(dets)


def _notes(dets):
    return [n for n in parse_overhead(dets).table.unplaced if n.startswith("seat ")]


def test_every_seat_of_the_example_is_read(table):
    dets, layout = table
    assert seat_notes(layout.placed) == [] and _notes(dets) == []


def test_a_seat_with_no_tiles_is_named(table):
    notes = seat_notes([p for p in table[1].placed if p.seat != "across"])
    assert notes == ["seat across not read: no tile found on its side of the table"]


def test_a_seat_whose_tiles_are_too_small_is_named(table):
    small = []
    for p in table[1].placed:
        if p.seat == "left":
            (cx, cy), r = p.det.center, LayoutParams().min_tile_px / 3
            p = replace(p, det=replace(p.det, box=(cx - r, cy - r, cx + r, cy + r)))
        small.append(p)
    notes = seat_notes(small)
    assert len(notes) == 1 and notes[0].startswith("seat left not read: its tiles are 7 px across")


def test_a_seat_read_with_doubt_is_named(table):
    unsure = [replace(p, det=replace(p.det, candidates=((p.det.kind, 0.3), (0, 0.2))))
              if p.seat == "right" and p.det.kind != T.BACK else p for p in table[1].placed]
    notes = seat_notes(unsure)
    assert len(notes) == 1 and notes[0].startswith("seat right read with doubt:")


def test_parse_overhead_names_a_seat_whose_tiles_are_gone(table):
    dets, layout = table
    across = {id(p.det) for p in layout.placed if p.seat == "across"}
    notes = _notes([d for d in dets if id(d) not in across])
    assert "seat across not read: no tile found on its side of the table" in notes
