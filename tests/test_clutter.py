"""Objects beside the tiles and a camera's light (mjtable.datasets.clutter, generate --clutter)."""
import importlib.util
import json
import random

import numpy as np
import pytest
from mjtable.datasets import generate
from mjtable.datasets.clutter import OBJECTS, camera_effects, scatter

needs_albumentations = pytest.mark.skipif(importlib.util.find_spec("albumentations") is None,
                                          reason="the train extra (albumentations)")


@needs_albumentations
def test_clutter_changes_the_picture_not_the_tiles():
    for kind in ("phone", "overhead"):
        plain_img, plain_gt, plain_angles = generate.make_scene(kind, 77, 3, clutter=False)
        img, gt, angles = generate.make_scene(kind, 77, 3, clutter=True)
        assert gt.objects == plain_gt.objects and angles == plain_angles
        assert np.abs(img.astype(int) - plain_img.astype(int)).mean() > 1.0
        again = generate.make_scene(kind, 77, 3, clutter=True)[0]
        assert np.array_equal(img, again)


def test_objects_are_drawn_where_they_are_seen_and_off_the_tiles():
    plane = np.full((600, 800, 3), 90, np.uint8)
    tiles = np.zeros((600, 800), np.uint8)
    tiles[250:350, 100:700] = 255                     # a row of tiles across the middle
    seen = np.float32([[0, 0], [800, 0], [800, 600], [0, 600]])
    drawn = 0
    for seed in range(10):
        p = plane.copy()
        drawn += scatter(p, tiles, 30.0, random.Random(seed), seen)
        changed = np.any(p != 90, axis=2)
        assert changed[tiles > 0].mean() < 0.1, seed
    assert drawn >= 20
    left_half = np.float32([[0, 0], [300, 0], [300, 600], [0, 600]])
    p = plane.copy()
    assert scatter(p, tiles, 30.0, random.Random(1), left_half) > 0
    assert not np.any(p[:, 400:] != 90)               # nothing lands where the camera does not look


def test_every_object_kind_draws_something_tile_sized():
    for make, _ in OBJECTS:
        patch, alpha = make(30.0, random.Random(2))
        assert patch.dtype == np.uint8 and patch.ndim == 3 and patch.shape[:2] == alpha.shape
        assert 0 <= alpha.min() and alpha.max() <= 1 and alpha.mean() > 0.2, make.__name__
        assert 5 <= max(patch.shape[:2]) <= 30 * 14, make.__name__       # a score sheet is the largest


@needs_albumentations
def test_camera_effects_move_no_pixel():
    """Glare, shadows, colour and gamma change each pixel where it is: two frames that differ only inside a
    square, given the same effects (same seed), differ only inside that square. A blur or a shift would carry
    the difference out of it (the labels are computed from the geometry and must stay right)."""
    gen = np.random.default_rng(0)
    for seed in range(30):
        a = gen.integers(0, 256, (120, 160, 3), dtype=np.uint8)
        b = a.copy()
        b[40:80, 60:100] = 255 - b[40:80, 60:100]
        fa, fb = camera_effects(a, random.Random(seed)), camera_effects(b, random.Random(seed))
        assert fa.shape == a.shape and fa.dtype == np.uint8
        outside = np.ones(a.shape[:2], bool)
        outside[40:80, 60:100] = False
        assert np.abs(fa.astype(int) - fb.astype(int))[outside].max() <= 1, seed
        assert np.abs(fa.astype(int) - a.astype(int)).mean() < 60, seed      # the picture is still there


@needs_albumentations
def test_cli_clutter_option(tmp_path):
    out = tmp_path / "c"
    assert generate.main(["--out", str(out), "--kind", "phone", "--n", "2", "--seed", "5", "--clutter",
                          "--workers", "1"]) == 0
    assert json.loads((out / "generator.json").read_text())["clutter"] is True
    assert len(list((out / "images").glob("*.jpg"))) == 2 and len(list((out / "labels").glob("*.txt"))) == 2
    # the written scenes are the cluttered ones (JPEG's loss aside), not the plain ones
    import cv2
    import numpy as np
    for i in range(2):
        written = cv2.imread(str(out / "images" / f"phone_5_00000{i}.jpg")).astype(float)
        assert np.abs(written - generate.make_scene("phone", 5, i, clutter=True)[0]).mean() < 1.5
        assert np.abs(written - generate.make_scene("phone", 5, i)[0]).mean() > 2.0


@needs_albumentations
def test_bench_clutter_measures_plain_and_cluttered_scenes():
    from tests.script_run import run_script
    p = run_script("bench_clutter", "--n", "2", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    (r,) = out.values()
    assert set(r) == {"plain", "clutter"} and r["plain"]["tiles"] == r["clutter"]["tiles"] > 10
    for v in r.values():
        assert 0.5 < v["found"] <= 1 and 0 <= v["right_kind"] <= 1 and v["stray_per_frame"] >= 0
    p = run_script("bench_clutter", "--seed", "910", timeout=120)       # the clutter training seed is refused
    assert p.returncode == 2 and "synth/clut910" in p.stderr
    p = run_script("bench_clutter", "--n", "0", timeout=120)
    assert p.returncode == 2 and "--n must be > 0" in p.stderr


def test_racks_change_the_picture_not_the_tiles():
    """generate --racks: the same table, the same labels, with clear racks drawn from a generator of their own;
    the same scene again is the same picture."""
    plain_img, plain_gt, plain_angles = generate.make_scene("overhead", 77, 3)
    img, gt, angles = generate.make_scene("overhead", 77, 3, racks=True)
    assert gt.objects == plain_gt.objects and angles == plain_angles
    assert np.abs(img.astype(int) - plain_img.astype(int)).mean() > 0.05
    assert np.array_equal(img, generate.make_scene("overhead", 77, 3, racks=True)[0])


def test_a_rack_lies_along_a_standing_hand_on_the_side_towards_the_middle():
    """A row of standing backs at the bottom of the plane and a river above it: the rack is drawn along the row
    (paler, the tiles showing through) on the side of the river, and nowhere near the river itself."""
    from mjtable.datasets.clutter import racks
    from mjtable.datasets.render import TileSpec, silhouette
    from mjtable.scoring import tiles as T
    hand = [TileSpec(T.BACK, 200 + 40 * i, 500, 0.0, 40, 30, seat="self", group="concealed") for i in range(10)]
    river = [TileSpec(5, 300 + 40 * i, 200, 0.0, 40, 54, seat="self", group="discard") for i in range(6)]
    tiles = hand + river
    sils = [silhouette(t, np.zeros(2)) for t in tiles]
    for seed in range(6):
        plane = np.full((700, 800, 3), 60, np.uint8)
        drawn = racks(plane, tiles, sils, random.Random(seed))
        changed = np.any(plane != 60, axis=2)
        if not drawn:                           # a seat without a rack: nothing drawn
            assert not changed.any()
            continue
        rows = np.nonzero(changed.any(axis=1))[0]
        assert 470 <= rows.min() <= 500 and rows.max() <= 520, seed      # from the hand's foot towards the middle
        assert not changed[:400].any() and changed[:, 200:600].any(axis=0).mean() > 0.9
        assert plane[changed].mean() > 60                                  # pale: the plastic lightens the table
    assert any(racks(np.full((700, 800, 3), 60, np.uint8), tiles, sils, random.Random(s)) for s in range(6))


def test_cli_racks_option_is_for_whole_tables(tmp_path):
    assert generate.main(["--out", str(tmp_path / "p"), "--kind", "phone", "--n", "1", "--racks"]) == 2
    assert generate.main(["--out", str(tmp_path / "o"), "--kind", "overhead", "--n", "1", "--racks",
                          "--workers", "1", "--imgsz", "320"]) == 0
    assert json.loads((tmp_path / "o" / "generator.json").read_text())["racks"] is True
