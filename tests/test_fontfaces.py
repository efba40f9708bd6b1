"""Tile faces drawn from CJK fonts (mjtable.datasets.fontfaces) and the scenes made with them (--art)."""
import json

import cv2
import numpy as np
from mjtable.datasets import generate
from mjtable.datasets.fontfaces import FACE_H, FACE_W, render_set
from mjtable.datasets.tileart import FONT_SETS, PACKAGED, load_faces

DRAWN = list(range(9)) + list(range(27, 42))         # characters, honours, seasons and flowers


def test_a_set_draws_every_character_honour_and_flower_face_alike_each_time():
    a, b = render_set(3), render_set(3)
    assert sorted(a) == DRAWN
    for t in DRAWN:
        assert a[t].shape == (FACE_H, FACE_W, 3) and a[t].dtype == np.uint8
        assert np.array_equal(a[t], b[t])
    other = render_set(4)
    assert any(not np.array_equal(a[t], other[t]) for t in DRAWN)


def test_faces_carry_ink_and_differ_from_each_other():
    for seed in range(6):
        faces = render_set(seed)
        for t in DRAWN:
            if t == 31:                                 # the white dragon may be blank
                continue
            grey = cv2.cvtColor(faces[t], cv2.COLOR_BGR2GRAY)
            assert (grey < grey.max() - 60).mean() > 0.02, (seed, t)     # some ink on the face
        seasons_flowers = [faces[t].astype(int) for t in range(34, 42)]
        for i in range(8):
            for j in range(i + 1, 8):
                assert np.abs(seasons_flowers[i] - seasons_flowers[j]).mean() > 2, (seed, i, j)


def test_font_sets_get_dots_and_bamboo_of_a_packaged_set():
    faces = load_faces()
    for name in FONT_SETS:
        assert sorted(faces[name]) == list(range(42)), name
    base = faces["xmj_real"]
    assert all(np.array_equal(faces[FONT_SETS[0]][t], base[t]) for t in range(9, 27))


def test_scenes_use_the_packaged_art_unless_told(tmp_path):
    assert set(generate._art()) == set(PACKAGED)
    before = generate.make_scene("phone", 5, 0)[0]
    out = tmp_path / "fonts"
    assert generate.main(["--out", str(out), "--kind", "phone", "--n", "2", "--seed", "5", "--art", "fonts",
                          "--workers", "1"]) == 0
    assert json.loads((out / "generator.json").read_text())["art"] == "fonts"
    assert set(generate._art("fonts")) == set(FONT_SETS)
    # the command's --art reaches its scenes only: a later scene in the same process draws the packaged art
    assert generate.ART == "packaged" and np.array_equal(generate.make_scene("phone", 5, 0)[0], before)
    fonts = generate.make_scene("phone", 5, 0, art="fonts")[0]
    assert not np.array_equal(fonts, before)
    assert len(list((out / "images").glob("*.jpg"))) == 2 and len(list((out / "labels").glob("*.txt"))) == 2
