"""Photos whose tiles lie at an angle (vision/level.py): the tilt found from the edges, the turn and the boxes
mapped back."""
import cv2
import numpy as np
import pytest

from mjtable.vision.level import boxes_back, densest_direction, edge_angle, off_by, off_densest, tilt, turn, turn_boxes


def _row(n: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """A dark table with a row of light tiles, each with a mark on it; and their boxes."""
    img = np.full((400, 640, 3), 60, np.uint8)
    boxes = []
    for i in range(n):
        x = 40 + i * 68
        cv2.rectangle(img, (x, 150), (x + 56, 230), (230, 230, 230), -1)
        cv2.putText(img, str(i + 1), (x + 14, 200), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (0, 0, 200), 2)
        boxes.append([x, 150, x + 56, 230])
    return img, np.array(boxes, float)


@pytest.mark.parametrize("deg", [15, 20, 30, 35, 44, -20, -30, -40])
def test_the_tilt_turns_a_turned_row_back(deg):
    img, _ = _row()
    turned, _ = turn(img, deg)
    assert tilt(turned) == pytest.approx(-deg, abs=2.0)


@pytest.mark.parametrize("deg", [0, 5, -8])
def test_a_row_near_the_axes_is_left_as_it_is(deg):
    img, _ = _row()
    assert tilt(turn(img, deg)[0]) == 0.0


def test_no_edges_agree_on_noise_or_a_blank_frame():
    rng = np.random.default_rng(0)
    assert tilt(rng.integers(0, 255, (300, 400, 3), dtype=np.uint8)) == 0.0
    assert tilt(np.full((300, 400, 3), 128, np.uint8)) == 0.0


def test_turn_holds_the_whole_image_and_boxes_come_back():
    img, boxes = _row()
    turned, m = turn(img, 30)
    h, w = img.shape[:2]
    assert turned.shape[0] >= h and turned.shape[1] >= w
    on_canvas = turn_boxes(boxes, m)                    # the tiles' boxes on the turned canvas ...
    back, inside = boxes_back(on_canvas, m, img.shape)  # ... mapped back hold the tiles they came from
    assert inside.all()
    assert (back[:, :2] <= boxes[:, :2] + 1e-6).all() and (back[:, 2:] >= boxes[:, 2:] - 1e-6).all()
    corner = np.array([[0, 0, 10, 10]], float)          # a box in the filled corner of the canvas
    assert not boxes_back(corner, m, img.shape)[1][0]


@pytest.mark.parametrize("view, turned", [("phone", True), ("overhead", False)])
def test_only_a_photo_of_a_hand_is_read_turned(monkeypatch, view, turned):
    """A whole table's rows run many ways: its view is decided as it is, and only a hand is turned level."""
    from mjtable.vision import detector as D
    from mjtable.vision.detector_config import DetectorConfig
    det = D.TileDetector(DetectorConfig(threads=1))
    img, _ = _row()
    seen = []
    monkeypatch.setattr(D, "tilt", lambda im: 30.0)
    monkeypatch.setattr(det, "locate_for", lambda im, kind: ((np.zeros((0, 4)),) * 4, view))
    monkeypatch.setattr(det, "_detect", lambda im, kind, located=None: seen.append(im.shape) or ([], view))
    det.detect(img)
    assert (seen[0] != img.shape) == turned


def test_the_bundled_hand_turned_30_degrees_reads_as_it_does_level():
    """The example photo of a real hand, turned as a player holding the phone askew would take it."""
    import mjtable
    from mjtable.vision.images import load_image
    from mjtable.scoring.notation import format_hand
    from pathlib import Path
    img = load_image(Path(__file__).resolve().parent.parent / "examples" / "real_hand.jpg")
    turned, _ = turn(img, 30)
    assert tilt(turned) == pytest.approx(-30, abs=3)
    level, askew = mjtable.read(img), mjtable.read(turned)
    assert askew.hand is not None and format_hand(askew.hand) == format_hand(level.hand)
    assert askew.result.total == level.result.total


def test_a_photo_turned_level_is_read_around_its_tiles():
    """The turned canvas is larger than the photo; it is read in the box around the tiles found before the turn,
    grown by two tiles each side and kept on the canvas, so that the tiles reach the locator as large as they
    were. Fewer than 3 tiles: the whole canvas."""
    from mjtable.vision.level import LEVEL_MARGIN, around_tiles
    boxes = np.array([[100, 100, 140, 150], [140, 100, 180, 150], [180, 100, 220, 150]], float)
    pad = LEVEL_MARGIN * 50
    assert around_tiles(boxes, (400, 600, 3)) == (0, 0, int(220 + pad), int(150 + pad))
    assert around_tiles(boxes + [200, 150, 200, 150], (400, 600, 3)) == (
        int(300 - pad), int(250 - pad), int(420 + pad), 400)
    assert around_tiles(boxes[:2], (400, 600, 3)) == (0, 0, 600, 400)


def _lone_tile(deg: float) -> np.ndarray:
    """A light tile with a mark, turned by deg, alone on a dark table of 200 x 200."""
    img = np.full((200, 200, 3), 60, np.uint8)
    cv2.fillConvexPoly(img, cv2.boxPoints(((100, 100), (56, 80), deg)).astype(np.int32), (230, 230, 230))
    return img


@pytest.mark.parametrize("deg", [0, 10, 25, 40, -20])
def test_each_tile_s_edges_give_its_own_direction(deg):
    """edge_angle reads one tile's box (the tile and a little of the table round it): the tiles of a row turned by
    deg share the row's direction, the one tilt finds modulo 90; a tile turned by deg alone gives deg."""
    img, boxes = _row()
    turned, m = turn(img, deg)
    got = [edge_angle(turned, b + [-4, -4, 4, 4]) for b in turn_boxes(boxes, m)]
    assert all(a == pytest.approx((-deg + 45) % 90 - 45, abs=2.5) for a in got), got
    off = edge_angle(_lone_tile(deg), (30, 30, 170, 170)) - edge_angle(_lone_tile(0), (30, 30, 170, 170))
    assert abs((off + 45) % 90 - 45) == pytest.approx(abs(deg), abs=2.5)


def test_a_box_of_no_edges_or_none_that_agree_has_no_direction():
    assert edge_angle(np.full((100, 100, 3), 128, np.uint8), (10, 10, 90, 90)) is None
    rng = np.random.default_rng(1)
    assert edge_angle(rng.integers(0, 255, (100, 100, 3), dtype=np.uint8), (0, 0, 100, 100)) is None
    assert edge_angle(np.zeros((100, 100, 3), np.uint8), (95, 95, 120, 120)) is None      # off the image


def test_the_detector_gives_the_tiles_of_a_photo_of_a_hand_their_edge_direction():
    """A photo of a hand: most tiles get their edges' direction, and the hand's tiles agree on it; a whole table's
    tiles get none (the layout of a table does not use it)."""
    from pathlib import Path

    from mjtable.vision.detector import TileDetector
    root = Path(__file__).resolve().parent.parent
    det = TileDetector()
    hand = det.detect(cv2.imread(str(root / "examples" / "phone_win.jpg")))
    angles = [d.angle for d in hand if d.angle is not None]
    assert hand.read_as == "phone" and len(angles) >= len(hand) // 2
    assert max(angles) - min(angles) < 6.0
    table = det.detect(cv2.imread(str(root / "examples" / "overhead.jpg")))
    assert table.read_as != "phone" and all(d.angle is None for d in table)


def test_the_densest_direction_across_90_degrees_and_by_weight():
    """The directions agree modulo 90 degrees (44 and -44 lie 2 apart); without a window holding more than half
    of them there is none; weighed, three weak directions give way to two sure ones."""
    assert off_by([densest_direction([44.0, -44.0, 43.0, 10.0], 15.0)], 44.0)[0] < 2.0
    assert densest_direction([0.0, 20.0, 40.0, -20.0], 15.0) is None
    angles = [7.6, 6.2, -8.0, -9.3, -8.0]
    assert densest_direction(angles, 15.0) < -7.0
    assert densest_direction(angles, 15.0, [0.7, 0.7, 0.15, 0.15, 0.15]) > 5.0


def test_a_dominant_direction_among_loose_tiles_that_outnumber_the_hand():
    """Seven tiles of a hand agree on about 0 degrees; nine loose tiles lie every way, four of them within 15
    degrees of one another. No window holds more than half, but the hand's holds 1.75 times any window apart from
    it: with dominant=1.5 it is the direction, with 2 (or none asked) there is none."""
    angles = [-0.4, -0.4, 0.3, 0.3, 0.7, 0.8, 2.0, -28.7, -24.5, 10.8, 12.0, 21.3, 21.6, 25.8, 28.7, 39.6]
    assert densest_direction(angles, 15.0) is None
    assert abs(densest_direction(angles, 15.0, dominant=1.5)) < 1.0
    assert densest_direction(angles, 15.0, dominant=2.0) is None
    assert densest_direction(angles[:4] + angles[7:], 15.0, dominant=1.5) is None      # four are too few


def test_off_densest_measures_each_known_direction_from_the_densest():
    """Unknown directions (None) lie 0 off; fewer than five known show no direction (None); a weighed window
    decides it as densest_direction does."""

    angles = [0.5, None, -0.3, 0.2, 30.0, 0.0, None, -25.0]
    off = off_densest(angles, 15.0)
    assert off is not None and off[1] == off[6] == 0.0
    assert off[4] > 15.0 and off[7] > 15.0 and max(off[[0, 2, 3, 5]]) < 1.0
    assert off_densest([0.0, 0.5, None, 30.0], 15.0) is None
    sure = off_densest([7.6, 6.2, -8.0, -9.3, -8.0], 15.0, [0.7, 0.7, 0.15, 0.15, 0.15])
    assert sure[0] < 2.0 and sure[2] > 13.0
