"""Scene generator: determinism, label sanity, ground-truth JSON round trip and valid winning hands."""
import json
import random

import cv2
import numpy as np
import pytest

from mjtable.datasets.generate import main as generate_main
from mjtable.datasets.generate import make_scene, yolo_lines
from mjtable.datasets.ground_truth import from_json, phone_hand, to_json
from mjtable.datasets.hands import random_winning_hand
from mjtable.datasets.render import motion_kernel, photograph, visible_corners
from mjtable.scoring import tiles as T
from mjtable.vision.types import ORIENTATIONS


def test_random_winning_hands_are_valid():
    rng = random.Random(5)
    kinds = set()
    for _ in range(400):
        h = random_winning_hand(rng)
        assert h.problems() == [], h
        kinds.update(m.kind for m in h.melds)
        kinds.update("concealed_kong" for m in h.melds if m.concealed)
    assert {"chow", "pung", "kong", "concealed_kong"} <= kinds


@pytest.mark.parametrize("kind", ["phone", "overhead"])
def test_scene_is_deterministic(kind):
    a_img, a_gt, _ = make_scene(kind, seed=11, index=3, imgsz=320)
    b_img, b_gt, _ = make_scene(kind, seed=11, index=3, imgsz=320)
    c_img, c_gt, _ = make_scene(kind, seed=12, index=3, imgsz=320)
    assert np.array_equal(a_img, b_img)
    assert to_json(a_gt) == to_json(b_gt)
    assert to_json(a_gt)["objects"] != to_json(c_gt)["objects"]


@pytest.mark.parametrize("index", range(6))
def test_phone_scene_holds_a_valid_winning_hand(index):
    img, gt, angles = make_scene("phone", seed=21, index=index, imgsz=320)
    d = json.loads(json.dumps(to_json(gt)))
    back = from_json(d)
    assert to_json(back) == d
    hand = phone_hand(back)
    assert hand.problems() == []
    # every tile of the hand is drawn: faces + face-down kong tiles
    n_kong = sum(m.kind == "kong" for m in hand.melds)
    assert len(back.objects) == 14 + n_kong + len(hand.flowers)
    shown = sorted(o.kind for o in back.objects if o.kind != T.BACK and o.group != "flower")
    hidden = sum(o.kind == T.BACK for o in back.objects)
    assert len(shown) + hidden == 14 + n_kong
    assert len(angles) == len(back.objects)


@pytest.mark.parametrize("kind", ["phone", "overhead"])
def test_labels_inside_image_and_counts_valid(kind):
    for index in range(3):
        img, gt, _ = make_scene(kind, seed=31, index=index, imgsz=320)
        h, w = img.shape[:2]
        assert gt.objects
        for o in gt.objects:
            x1, y1, x2, y2 = o.box
            assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
            assert 0 <= o.kind <= T.BACK
            assert o.orientation in ORIENTATIONS
            assert (o.kind == T.BACK) == (o.orientation == "face_down")
        counts = np.bincount([o.kind for o in gt.objects if o.kind < T.N_KINDS], minlength=T.N_KINDS)
        assert counts.max() <= 4
        for line in yolo_lines(gt, w, h):
            c, *xywh = line.split()
            assert 0 <= int(c) <= 42 and all(0 <= float(v) <= 1 for v in xywh)


def test_overhead_has_four_rotated_players():
    img, gt, _ = make_scene("overhead", seed=41, index=0, imgsz=320)
    assert [p.seat for p in gt.table.players] == ["self", "right", "across", "left"]
    by_seat = {}
    for o in gt.objects:
        if o.group == "discard":
            by_seat.setdefault(o.seat, set()).add(o.orientation)
    expect = {"self": "upright", "right": "sideways", "across": "upside_down", "left": "sideways"}
    for seat, ors in by_seat.items():
        assert ors == {expect[seat]}
    for p in gt.table.players:
        n = sum(1 for o in gt.objects if o.seat == p.seat and o.group == "discard")
        assert n == len(p.discards)


def test_cli_writes_matching_files(tmp_path):
    assert generate_main(["--out", str(tmp_path), "--kind", "mixed", "--n", "2", "--seed", "3",
                          "--imgsz", "256", "--workers", "1"]) == 0
    imgs = sorted(p.stem for p in (tmp_path / "images").glob("*.jpg"))
    assert len(imgs) == 2
    for stem in imgs:
        lines = (tmp_path / "labels" / f"{stem}.txt").read_text().split()
        gt = json.loads((tmp_path / "gt" / f"{stem}.json").read_text())
        assert len(lines) == 5 * len(gt["objects"])
    assert generate_main(["--out", str(tmp_path), "--n", "0"]) == 2


@pytest.mark.parametrize("length", [3, 4, 5, 6])
def test_motion_kernel_is_centred(length):
    for angle in np.linspace(0, 180, 19):
        k = motion_kernel(length, angle)
        n = k.shape[0]
        ys, xs = np.mgrid[0:n, 0:n]
        assert n % 2 == 1 and k.sum() == pytest.approx(1, abs=1e-5)
        assert (k * xs).sum() == pytest.approx(n // 2, abs=1e-3) and (k * ys).sum() == pytest.approx(n // 2, abs=1e-3)
    flat = motion_kernel(length, 0.0)[length // 2]         # the middle row: a box blur length px long
    full = np.full(length, 1.0 / length)
    assert flat == pytest.approx(full if length % 2 else np.r_[full[0] / 2, full[1:], full[0] / 2])
    with pytest.raises(ValueError):
        motion_kernel(0, 0.0)


def _half_crossing(profile: np.ndarray, level: float) -> float:
    i = int(np.argmax(profile >= level))
    return i - 1 + (level - profile[i - 1]) / (profile[i] - profile[i - 1])


def test_photograph_keeps_edges_where_the_labels_are():
    """Blur, lighting, noise and JPEG may soften an edge but must not move it: labels are computed from the
    geometry. A white square on black, photographed with many seeds (some with motion blur), keeps its edges at
    59.5 and 139.5 px (pixel centres 60..139) to a fraction of a pixel."""
    plane = np.zeros((200, 200, 3), np.uint8)
    plane[60:140, 60:140] = 255
    worst = 0.0
    for seed in range(40):
        img = photograph(plane, np.eye(3), 200, 200, random.Random(seed)).astype(np.float32).mean(2)
        rows, cols = img[80:120], img[:, 80:120].T
        found = []
        for prof in list(rows) + list(cols):
            level = np.median(prof[80:120]) / 2
            found.append((_half_crossing(prof, level), 199 - _half_crossing(prof[::-1], level)))
        left, right = np.mean(found, 0)
        worst = max(worst, abs(left - 59.5), abs(right - 139.5))
    assert worst < 0.3, worst


def _rect(x0, y0, x1, y1):
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)


@pytest.mark.parametrize("above, shows", [
    ([(0, -5, 10, 4)], (0, 4, 10, 10)),                      # a tile lying over its upper part (an added kong)
    ([(10, 0, 20, 10)], (0, 0, 10, 10)),                     # a neighbour touching it hides nothing
    ([(8, 0, 20, 10)], (0, 0, 8, 10)),                       # a neighbour drawn over its right side
    ([(3, 3, 6, 6)], (0, 0, 10, 10)),                        # a small tile on its middle
    ([(-1, -1, 5, 11), (5, -1, 11, 5)], (5, 5, 10, 10)),     # two over it: only a corner shows
    ([(-1, -1, 11, 11)], None),                              # covered
    ([(-1, -1, 5, 11), (5, -1, 11, 11)], None),              # covered by two
])
def test_visible_corners_bound_what_shows(above, shows):
    v = visible_corners(_rect(0, 0, 10, 10), [_rect(*a) for a in above])
    if shows is None:
        assert len(v) == 0
    else:
        assert (*v.min(0), *v.max(0)) == pytest.approx(shows, abs=1e-9)


def test_visible_corners_match_a_fine_raster():
    """Tilted tiles over a tilted tile: the visible part's box from the corners against the box of the pixels
    of a 16x raster where the tile is drawn and the others are not."""
    rng = np.random.default_rng(3)
    S = 16

    def quad(cx, cy, w, h, deg):
        a = np.radians(deg)
        u, r = np.array([-np.sin(a), -np.cos(a)]), np.array([np.cos(a), -np.sin(a)])
        return np.array([[cx, cy] + s * u * h / 2 + t * r * w / 2 for s, t in ((1, -1), (1, 1), (-1, 1), (-1, -1))])

    for _ in range(25):
        sil = quad(30, 30, 20, 28, rng.uniform(-20, 20))
        above = [quad(30 + rng.uniform(-18, 18), 30 + rng.uniform(-22, 22), 20, 28, rng.uniform(-20, 20))
                 for _ in range(rng.integers(1, 4))]
        mask = np.zeros((60 * S, 60 * S), np.uint8)
        cv2.fillConvexPoly(mask, np.int32(np.round(sil * S * 16)), 1, shift=4)
        for a in above:
            cv2.fillConvexPoly(mask, np.int32(np.round(a * S * 16)), 0, shift=4)
        v = visible_corners(sil, above)
        ys, xs = np.nonzero(mask)
        if len(xs) < 4:
            continue
        raster = np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]) / S
        assert len(v) and np.abs(np.r_[v.min(0), v.max(0)] - raster).max() < 2.5 / S


def test_visible_boxes_leave_out_what_other_tiles_hide():
    """The same frame labelled both ways: the same image; each visible box inside its whole box, and the boxes of
    tiles whose whole outlines run under a neighbour drawn later (walls, rivers) smaller."""
    img_v, gt_v, _ = make_scene("overhead", seed=41, index=0, imgsz=640, boxes="visible")
    img_w, gt_w, _ = make_scene("overhead", seed=41, index=0, imgsz=640)       # whole: the default
    assert np.array_equal(img_v, img_w) and len(gt_v.objects) == len(gt_w.objects)
    v = np.array([o.box for o in gt_v.objects])
    w = np.array([o.box for o in gt_w.objects])
    assert (v[:, :2] >= w[:, :2] - 0.051).all() and (v[:, 2:] <= w[:, 2:] + 0.051).all()
    assert (np.abs(v - w).max(1) > 0.3).sum() >= 10
    with pytest.raises(ValueError):
        make_scene("overhead", seed=41, index=0, imgsz=320, boxes="amodal")


def test_cli_boxes_option(tmp_path):
    for boxes in ("visible", "whole"):
        assert generate_main(["--out", str(tmp_path / boxes), "--kind", "overhead", "--n", "1", "--seed", "41",
                              "--imgsz", "320", "--workers", "1", "--boxes", boxes]) == 0
    stem = "overhead_41_000000"
    assert ((tmp_path / "visible" / "images" / f"{stem}.jpg").read_bytes()
            == (tmp_path / "whole" / "images" / f"{stem}.jpg").read_bytes())
    assert ((tmp_path / "visible" / "labels" / f"{stem}.txt").read_text()
            != (tmp_path / "whole" / "labels" / f"{stem}.txt").read_text())


def test_a_tile_under_an_added_kong_keeps_its_whole_box():
    """The added tile of a kong lies on the claimed one: that does not hide the claimed tile (its box keeps its
    place in the meld's row), as a neighbour drawn over a tile's edge does."""
    _, gv, _ = make_scene("phone", seed=7, index=73, imgsz=640, boxes="visible")
    _, gw, _ = make_scene("phone", seed=7, index=73, imgsz=640, boxes="whole")
    side = [(v.box, w.box) for v, w in zip(gv.objects, gw.objects)
            if v.group == "meld:0" and v.orientation == "sideways"]
    assert len(side) == 2                       # the claimed tile and the one added on it
    (a_v, a_w), (b_v, b_w) = side
    assert a_v == a_w and b_v == b_w
    assert min(a_w[3], b_w[3]) > max(a_w[1], b_w[1])       # they overlap in the frame



def test_portrait_seat_view_is_the_landscape_one_in_a_taller_frame(tmp_path):
    """--portrait: the seat view of the same seed, as wide as the upright frame, moved down into it; every box
    moved with it and inside the frame."""
    land_img, land, _ = make_scene("seat", 31, 2, 360)                  # 360x202
    img, gt, _ = make_scene("seat", 31, 2, 640, portrait=True)           # 360x640, the same table inside
    assert img.shape[:2] == (640, 360) and land_img.shape[:2] == (202, 360)
    assert len(gt.objects) == len(land.objects) > 50
    dy = {round(g.box[1] - d.box[1], 3) for g, d in zip(gt.objects, land.objects)}
    assert len(dy) == 1 and 0 < dy.pop() < 640 - 202
    assert all(g.box[0] == d.box[0] and g.kind == d.kind for g, d in zip(gt.objects, land.objects))
    assert generate_main(["--out", str(tmp_path / "p"), "--kind", "phone", "--n", "1", "--portrait"]) == 2
    assert generate_main(["--out", str(tmp_path / "s"), "--kind", "seat", "--n", "1", "--imgsz", "320",
                          "--portrait", "--workers", "1"]) == 0
    assert cv2.imread(str(next((tmp_path / "s" / "images").glob("*.jpg")))).shape[:2] == (320, 180)


def test_loose_tiles_lie_beside_the_same_hand_at_any_angle():
    """--loose adds 4-16 labelled tiles lying loose beyond the hand, turned any way, from a generator of their
    own: the hand, its melds and its flowers are the same as without them."""
    _, plain, _ = make_scene("phone", seed=31, index=2, imgsz=320)
    img, gt, angles = make_scene("phone", seed=31, index=2, imgsz=320, loose=True)
    assert to_json(gt)["players"] == to_json(plain)["players"]
    loose = [(o, a) for o, a in zip(gt.objects, angles) if o.group == "loose"]
    assert 4 <= len(loose) <= 16
    assert len(gt.objects) - len(loose) == len(plain.objects)
    off_axis = [a for _, a in loose if min(a % 90, 90 - a % 90) > 5]
    assert off_axis, "loose tiles lie at angles other than right angles"
    h, w = img.shape[:2]
    assert all(0 <= o.box[0] < o.box[2] <= w and 0 <= o.box[1] < o.box[3] <= h for o, _ in loose)
    again = make_scene("phone", seed=31, index=2, imgsz=320, loose=True)[1]
    assert [o.box for o in again.objects] == [o.box for o in gt.objects]


def test_cli_loose_is_for_phone_photos(tmp_path, capsys):
    assert generate_main(["--out", str(tmp_path), "--kind", "overhead", "--n", "1", "--loose"]) == 2
    assert "--loose is for --kind phone" in capsys.readouterr().err
    assert generate_main(["--out", str(tmp_path), "--kind", "phone", "--n", "1", "--loose", "--workers", "1",
                          "--imgsz", "320"]) == 0
    assert json.loads((tmp_path / "generator.json").read_text())["loose"] is True
    gt = from_json((tmp_path / "gt" / "phone_0_000000.json").read_text())
    assert any(o.group == "loose" for o in gt.objects)
