"""A whole table read region by region (vision.regions): rows of boxes found, each rectified by its own
homography into an upright strip of close-up-sized tiles, boxes mapped back to the frame, and the option run end
to end on a rendered seat view."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from mjtable.vision import regions as R
from mjtable.vision.perspective import apply_homography

TILE_W, TILE_H, N = 30, 40, 6          # tiles on the table seen from above, px


def _table() -> tuple[np.ndarray, np.ndarray]:
    """A row of N tiles seen from above: white faces with a dark bar at each tile's top (upright tiles), on a
    green cloth; and the tiles' boxes."""
    img = np.full((200, 400, 3), (40, 110, 40), np.uint8)
    boxes = []
    for i in range(N):
        x, y = 50 + i * (TILE_W + 2), 80
        cv2.rectangle(img, (x, y), (x + TILE_W - 1, y + TILE_H - 1), (235, 235, 235), -1)
        cv2.rectangle(img, (x + 4, y + 3), (x + TILE_W - 5, y + 10), (30, 30, 160), -1)
        boxes.append((x, y, x + TILE_W, y + TILE_H))
    return img, np.array(boxes, np.float64)


def _seat_camera() -> np.ndarray:
    """A homography like a photo from a seat: the far side shrunk, the depth squashed to half."""
    c = np.array([[1, 0, -200], [0, 1, -100], [0, 0, 1.0]])
    return np.linalg.inv(c) @ np.array([[1, 0.05, 0], [0, 0.5, 0], [0, -0.002, 1.0]]) @ c


def _photo():
    """The table photographed under _seat_camera: (image, the tiles' boxes in it, the camera)."""
    img, boxes = _table()
    G = _seat_camera()
    photo = cv2.warpPerspective(img, G, (400, 200), flags=cv2.INTER_LINEAR, borderValue=(40, 110, 40))
    return photo, R.map_boxes_by(G, boxes), G


def test_rows_chain_neighbours_across_and_up():
    across = np.array([[10, 10, 20, 24], [22, 10, 32, 24], [34, 11, 44, 25], [100, 10, 110, 24]], float)
    up = np.array([[200, 100, 220, 110], [200, 112, 220, 122], [201, 124, 221, 134]], float)
    found = R.rows(np.concatenate([across, up]))
    got = sorted((tuple(idx.tolist()), a) for idx, a in found)
    assert got == [((0, 1, 2), True), ((3,), False), ((4, 5, 6), False)]


def test_rectified_row_gives_upright_tiles_of_the_close_up_size():
    photo, boxes, _ = _photo()
    assert np.median(boxes[:, 3] - boxes[:, 1]) < 0.7 * TILE_H       # squashed in the photo
    H, (w, h) = R.row_homography(boxes, True)
    strip = R.rectify(photo, H, (w, h))
    assert strip.shape[:2] == (h, w)
    inner = R.map_boxes_by(H, boxes)
    tw, th = inner[:, 2] - inner[:, 0], inner[:, 3] - inner[:, 1]
    # every tile about TILE_PX tall and a tile's width for its height, in order along the strip
    assert np.allclose(th, R.TILE_PX, rtol=0.15), th
    assert np.allclose(tw / th, TILE_W / TILE_H, rtol=0.15), tw / th
    assert (np.diff(inner[:, 0]) > 0.6 * tw[:-1]).all()
    # upright: each tile's dark bar lies in its top third, white below
    for x1, y1, x2, y2 in inner:
        t = strip[int(y1):int(y2), int(x1) + 3:int(x2) - 3].astype(int)
        red = (t[:, :, 2] - t[:, :, 1]) > 60
        rows_red = np.flatnonzero(red.mean(1) > 0.5)
        assert len(rows_red) and rows_red.max() < (y2 - y1) / 3, rows_red
        assert t[-5:, :, 1].mean() > 180                          # the face's bottom is white


def test_row_up_the_frame_is_the_transpose():
    _, boxes, _ = _photo()
    H, (w, h) = R.row_homography(boxes, True)
    T_, (tw, th) = R.row_homography(boxes[:, [1, 0, 3, 2]], False)
    assert (tw, th) == (h, w)
    pts = np.array([[60.0, 70.0], [150.0, 90.0]])
    assert np.allclose(apply_homography(T_, pts[:, ::-1]), apply_homography(H, pts)[:, ::-1], atol=1e-6)


def test_boxes_found_in_a_strip_map_back_into_the_frame():
    photo, boxes, G = _photo()
    H, size = R.row_homography(boxes, True)
    inner = R.map_boxes_by(H, boxes)
    back = R.map_boxes_by(np.linalg.inv(H), inner)
    from mjtable.vision.metrics import box_iou
    assert np.diag(box_iou(back, boxes)).min() > 0.8
    # the strip's box of a tile is the tile's box of the table, mapped through the photo
    _, table_boxes = _table()
    via = R.map_boxes_by(H @ G, table_boxes)
    assert np.diag(box_iou(via, inner)).min() > 0.7


def _first_seat_view():
    from mjtable.datasets.generate import make_scene
    img, gt, _ = make_scene("seat", 4242, 0, 1280)
    return img, gt


@pytest.mark.slow
def test_regions_option_reads_a_seat_view_end_to_end():
    from mjtable.vision.compare import agnostic_matches, as_arrays
    from mjtable.vision.detector import DetectorConfig, TileDetector
    img, gt = _first_seat_view()
    right = {}
    for regions in (False, True):
        dets = TileDetector(DetectorConfig(regions=regions)).detect(img)
        assert dets.read_as == "seat" and dets.view == "overhead"
        b, k, c, gb, gk = as_arrays(dets, gt)
        h, w = img.shape[:2]
        assert (b >= -1e-6).all() and (b[:, [0, 2]] <= w).all() and (b[:, [1, 3]] <= h).all()
        m = agnostic_matches(gb, b, c)
        right[regions] = int(sum(p >= 0 and k[p] == q for p, q in zip(m, gk)))
    # rendered art reads a little better by the seat classifier, trained on it (scripts/bench_seat_view.py)
    assert right[True] >= 0.8 * len(gt.objects) and right[False] >= 0.8 * len(gt.objects), right
