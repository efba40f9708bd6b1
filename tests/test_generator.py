"""Scene generator: determinism, label sanity, ground-truth JSON round trip and valid winning hands."""
import json
import random

import numpy as np
import pytest

from datasets.generate import main as generate_main
from datasets.generate import make_scene, yolo_lines
from datasets.ground_truth import from_json, phone_hand, to_json
from datasets.hands import random_winning_hand
from datasets.render import motion_kernel, photograph
from scoring import tiles as T
from vision.types import ORIENTATIONS


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
