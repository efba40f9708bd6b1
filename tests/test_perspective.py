"""A whole table photographed from a seat: the perspective found from the tiles' spacing and undone before the
overhead reading (vision.perspective), on rendered tables whose truth is known."""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mjtable.datasets.generate import make_scene
from mjtable.vision.compare import area_key
from mjtable.vision.layout import overhead, parse_overhead
from mjtable.vision import perspective as PV
from mjtable.vision.types import Detection


def _truth(kind: str, index: int, size: int = 1280):
    _, gt, _ = make_scene(kind, 4242, index, size)
    return gt, [Detection(o.box, o.kind, o.orientation, 1.0) for o in gt.objects]


def _seats_read(gt, layout) -> int:
    return sum(area_key(layout.table.player(p.seat), True) == area_key(p, True) for p in gt.table.players)


@pytest.fixture(scope="module")
def seat_tables():
    return [_truth("seat", i) for i in range(6)]


def test_seat_view_reads_every_seat_from_true_boxes(seat_tables, monkeypatch):
    read = [_seats_read(gt, parse_overhead(dets)) for gt, dets in seat_tables]
    assert sum(read) >= 22, read                       # of 24 seats
    for gt, dets in seat_tables:
        layout = parse_overhead(dets)
        assert "perspective is undone" in layout.table.unplaced[0]
        # placed tiles keep the boxes they have in the photo
        boxes = {d.box for d in dets}
        assert all(p.det.box in boxes for p in layout.placed if p.group != "duplicate")
    # without undoing the perspective the same boxes read far worse
    monkeypatch.setattr(overhead, "plane_from_tiles", lambda dets: None)
    monkeypatch.setattr(overhead, "depth_from_shapes", lambda dets: None)
    plain = [_seats_read(gt, parse_overhead(dets)) for gt, dets in seat_tables]
    assert sum(plain) <= sum(read) - 10, (plain, read)


def test_overhead_frames_have_no_perspective_to_undo():
    for i in range(4):
        gt, dets = _truth("overhead", i, 640)
        assert PV.plane_from_tiles(dets) is None
        assert "perspective" not in " ".join(parse_overhead(dets).table.unplaced)


def _seat_camera(k: float, squash: float, lean: float = 0.0, center=(640.0, 480.0)) -> np.ndarray:
    """A homography like a photo from the self seat: the far (top) side shrunk by the perspective k, depth
    squashed, and leaning sideways (the camera a little off the table's middle)."""
    cx, cy = center
    to = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1.0]])
    back = np.array([[1, 0, cx], [0, 1, cy], [0, 0, 1.0]])
    return back @ np.array([[1, lean, 0], [0, squash, 0], [0, -k, 1.0]]) @ to


@pytest.mark.parametrize("k, squash, lean, angle", [(0.0012, 0.5, 0.0, 0), (0.0009, 0.4, 0.2, 3),
                                                    (0.0014, 0.6, -0.15, -4)])
def test_known_seat_homography_is_undone_and_every_seat_read(k, squash, lean, angle):
    """An overhead table laid out exactly, photographed through a seat's homography: every seat reads as it
    does from above, and the tiles' centres come back to the table's shape (after the best turn, scale and
    shift) within a tenth of a tile."""
    from tests.layout_scenes import layout_table, render
    from tests.test_layout import _expect, _table
    spec = _table()
    plan = layout_table(spec)
    flat = render(plan, angle=angle, scale=40)
    photo = render(plan, angle=angle, scale=40, homography=_seat_camera(k, squash, lean))
    H = PV.plane_from_tiles(photo)
    assert H is not None and PV.plane_from_tiles(flat) is None
    layout = parse_overhead(photo)
    for seat, s in spec.items():
        _expect(seat, s, layout.table.player(seat))
    # centres: the photo's mapped by H against the exact plan
    c_photo = np.array([[(d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2] for d in photo])
    G = _seat_camera(k, squash, lean)
    c_plan = np.array([[(d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2] for d in flat])
    a = c_plan - c_plan.mean(0)
    got = PV.apply_homography(H @ G, c_plan)                    # exact plane points through the photo and back
    b = got - got.mean(0)
    u, sv, vt = np.linalg.svd(b.T @ a)                # the similarity taking b nearest to a (Procrustes)
    scale = sv.sum() / (b * b).sum()
    err = np.linalg.norm(a - scale * b @ (u @ vt), axis=1)
    assert np.median(err) < 0.1 * 40 and err.max() < 0.3 * 40
    assert len(c_photo) == len(c_plan)


@pytest.mark.parametrize("squash, angle", [(0.5, 0), (0.6, 3), (0.4, -2)])
def test_squashed_depth_without_perspective_is_stretched_back(squash, angle, monkeypatch):
    """A table shot from a seat far back: the near tiles hardly larger than the far ones (no perspective to
    find), the depth squashed. The tiles' shapes say by how much, the depth is stretched back and every seat
    reads as from above; without the stretch the seats' rows run into each other."""
    from tests.layout_scenes import layout_table, render
    from tests.test_layout import _expect, _table
    spec = _table()
    photo = render(layout_table(spec), angle=angle, scale=40, homography=_seat_camera(0.0, squash))
    assert PV.plane_from_tiles(photo) is None
    S = PV.depth_from_shapes(photo)
    assert S is not None and abs(S[1, 1] * squash - 1) < 0.08
    layout = parse_overhead(photo)
    assert "depth is stretched back from the tiles' shapes" in layout.table.unplaced[0]
    for seat, s in spec.items():
        _expect(seat, s, layout.table.player(seat))
    monkeypatch.setattr(overhead, "depth_from_shapes", lambda dets: None)
    unstretched = parse_overhead(photo)
    wrong = []
    for seat, s in spec.items():
        try:
            _expect(seat, s, unstretched.table.player(seat))
        except AssertionError:
            wrong.append(seat)
    assert wrong


def test_tiles_seen_from_above_have_no_depth_to_stretch():
    from tests.layout_scenes import layout_table, render
    from tests.test_layout import _table
    for angle in (0, 5, 30):
        assert PV.depth_from_shapes(render(layout_table(_table()), angle=angle, scale=40)) is None
    for i in range(3):
        assert PV.depth_from_shapes(_truth("overhead", i, 640)[1]) is None


def test_too_few_tiles_or_none_at_all():
    _, dets = _truth("seat", 0)
    assert PV.plane_from_tiles(dets[:PV.MIN_TILES - 1]) is None
    assert PV.plane_from_tiles([]) is None


_extra = st.lists(st.tuples(st.floats(-50, 1330), st.floats(-300, 760), st.floats(1, 120), st.floats(1, 120),
                            st.integers(0, 42), st.floats(0.01, 1.0)), max_size=12)


@settings(max_examples=60, deadline=None)
@given(_extra, st.integers(0, 5), st.integers(0, 60))
def test_seat_view_with_stray_boxes_reads_or_refuses_without_warnings(seat_tables, extra, index, drop):
    """A seat view's boxes, some dropped, with stray boxes anywhere (above the table, where the wall or the
    players are) give a layout or a LayoutError, with no numpy warning; boxes past the horizon are not placed."""
    import warnings
    from mjtable.vision.layout import Layout, LayoutError
    gt, dets = seat_tables[index]
    dets = dets[drop:] + [Detection((x, y, x + w, y + h), k, "face_down" if k == 42 else "upright", c)
                          for x, y, w, h, k, c in extra]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            layout = parse_overhead(dets)
        except LayoutError:
            return
    assert isinstance(layout, Layout)
    assert all(np.isfinite(p.det.box).all() for p in layout.placed)


def test_box_past_the_horizon_is_not_placed(seat_tables):
    gt, dets = seat_tables[0]
    H = PV.plane_from_tiles(dets)
    a, b, c = H[2]                                    # w = a x + b y + c: zero on the horizon
    y0 = -(a * 640 + c) / b
    stray = Detection((630.0, y0 - 30, 650.0, y0 - 10), 5, "upright", 0.9)
    assert PV.beyond(H, [stray])[0] and not PV.beyond(H, dets).any()
    layout = parse_overhead(dets + [stray])
    assert "1 detection(s) beyond the table's far edge not placed" in layout.table.unplaced
    assert [p.group for p in layout.placed if p.det is stray] == ["unplaced"]
    assert _seats_read(gt, layout) == _seats_read(gt, parse_overhead(dets))


def test_reading_notes_name_points_in_the_photo():
    H = np.array([[2.0, 0.0, 10.0], [0.0, 3.0, -5.0], [0.0, 0.0, 1.0]])
    assert PV.in_photo(H, "self: lone weak box 3m at (30,25) in the meld area") == \
        "self: lone weak box 3m at (10,10) in the meld area"
    assert PV.in_photo(H, "no point here") == "no point here"
    # a detected seat view's notes name points inside the photo (the plane's own pixels run far past it)
    from mjtable.vision.detector import TileDetector
    img, _, _ = make_scene("seat", 113, 1, 1280)
    notes = parse_overhead(TileDetector().detect(img)).table.unplaced
    points = [tuple(map(int, m)) for n in notes for m in re.findall(r"at \((-?\d+),(-?\d+)\)", n)]
    assert points and all(-20 <= x <= 1300 and -20 <= y <= 740 for x, y in points), points
