"""Real-looking tables: the face bank cutter, its held-out split, the composed tables' ground truth, the benchmark."""
from __future__ import annotations

import json
import random

import cv2
import numpy as np
import pytest

from mjtable.datasets import realfaces as RF
from mjtable.datasets.ground_truth import GROUPS
from mjtable.scoring import tiles as T
from mjtable.scoring.table import SEAT_ANGLE


def _tile(img, x1, y1, x2, y2, colour):
    """A light tile face with a coloured bar in its top half (its way up shows)."""
    cv2.rectangle(img, (x1, y1), (x2, y2), (235, 238, 240), -1)
    cv2.rectangle(img, (x1 + 4, y1 + 4), (x2 - 4, (y1 + y2) // 2), colour, -1)


def _yolo(tid, x1, y1, x2, y2, w=640, h=640):
    return f"{tid} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}"


def _photo(tmp_path, stretch=1.0):
    """A 640x640 photo of three upright tiles, one at the edge and one sideways, stretched ``stretch`` times wide,
    and its YOLO labels."""
    img = np.full((640, 640, 3), (40, 110, 60), np.uint8)
    rows = []
    boxes = [(0, 100, 100, 160, 180), (13, 300, 100, 360, 180), (27, 200, 300, 260, 380),   # upright
             (5, 0, 450, 60, 530),                                                          # cut off by the edge
             (9, 400, 450, 480, 510)]                                                       # lying sideways
    for tid, x1, y1, x2, y2 in boxes:
        x1, x2 = round(x1 * stretch), round(x2 * stretch)
        _tile(img, x1, y1, x2, y2, (30, 30, 200))
        rows.append(_yolo(tid, x1, y1, x2, y2))
    (tmp_path / "p.jpg").write_bytes(cv2.imencode(".png", img)[1].tobytes())
    (tmp_path / "p.txt").write_text("\n".join(rows) + "\n")
    return img, "\n".join(rows)


def test_cut_faces_keeps_whole_upright_tiles(tmp_path):
    img, text = _photo(tmp_path)
    boxes = RF.photo_boxes(text, {k: k for k in range(42)}, (640, 640))
    assert [b[0] for b in boxes] == [0, 13, 27, 5, 9]
    faces = RF.cut_faces(img, boxes)
    assert [t for t, _ in faces] == [0, 13, 27]                 # not the cut-off one nor the sideways one
    for _, crop in faces:
        h, w = crop.shape[:2]
        assert 70 <= h <= 80 and 52 <= w <= 60
        assert crop[5:15].mean() < crop[-15:-5].mean()          # the bar at the top: kept the right way up
    turned = RF.cut_faces(img, boxes, turned={1})
    assert turned[1][1][-15:-5].mean() < turned[1][1][5:15].mean()     # turned upside down as told


def test_cut_faces_undoes_the_stretch(tmp_path):
    img, text = _photo(tmp_path, stretch=1.6)
    boxes = RF.photo_boxes(text, {k: k for k in range(42)}, (640, 640))
    assert RF.photo_stretch(boxes) == pytest.approx(1.6, rel=0.1)
    faces = RF.cut_faces(img, boxes)
    assert [t for t, _ in faces] == [0, 13, 27]
    for _, crop in faces:
        h, w = crop.shape[:2]
        assert w / h == pytest.approx(RF.FACE_ASPECT, rel=0.08)    # 96 px wide in the photo, 60 before


def test_empty_patches_touch_no_tile(tmp_path):
    img, text = _photo(tmp_path)
    boxes = RF.photo_boxes(text, {k: k for k in range(42)}, (640, 640))
    patches = RF.empty_patches(img, boxes, random.Random(0), n=3, side=96)
    assert patches and all(p.shape == (96, 96, 3) for p in patches)
    for p in patches:                                   # only the green cloth: no tile's white or red in it
        assert RF.flat_patch(p) and abs(p.reshape(-1, 3).mean(0) - (40, 110, 60)).max() < 1


def test_upload_sets_group_by_upload_and_day():
    sets = RF.upload_sets(["395465303_1_2_n", "395465309_3_4_n", "395530362_5_6_n", "20231119_003551",
                           "20231119_010101", "IMG_20231030_204854", "2aGXQnBH5SHRuF2"])
    assert sets["395465303_1_2_n"] == sets["395465309_3_4_n"] != sets["395530362_5_6_n"]
    assert sets["20231119_003551"] == sets["20231119_010101"] != sets["IMG_20231030_204854"]
    assert sets["2aGXQnBH5SHRuF2"] == "2aGXQnBH5SHRuF2"


def _fake_shared(tmp_path, names):
    """A shared folder holding a tiny chinese_mahjong_detection: one tile per photo, its class the photo's."""
    src = tmp_path / "shared" / "data" / RF.CMD
    (src / "photos" / "images").mkdir(parents=True)
    (src / "photos" / "labels").mkdir(parents=True)
    (src / "data.yaml").write_text("names: ['f1', 'm1', 'p1', 's1', 'z1', 'f2', 'm2']\n")
    for i, n in enumerate(names):
        img = np.full((640, 640, 3), (60, 100, 40), np.uint8)
        _tile(img, 200, 200, 260, 280, (20, 20, 200))
        cv2.imwrite(str(src / "photos" / "images" / f"{n}_jpg.rf.{i:04x}.jpg"), img)
        (src / "photos" / "labels" / f"{n}_jpg.rf.{i:04x}.txt").write_text(_yolo(i % 7, 200, 200, 260, 280) + "\n")
    return tmp_path / "shared"


def test_heldout_sets_never_feed_the_training_bank(tmp_path):
    # 12 photos in 6 uploads of two: whichever photo the split holds out, its upload-mate is in neither bank
    names = [f"{395000000 + 10_000 * k + j}_1_{k}{j}_n" for k in range(6) for j in (0, 1)]
    index = RF.build_bank(tmp_path / "bank", _fake_shared(tmp_path, names), heldout=0.25, seed=0, riichi=False,
                          fixes={})
    held_sets = set(index["heldout_sets"])
    assert held_sets and len(index["heldout_photos"]) == 3
    train = [f for f in index["faces"] if f[0] == "train"]
    held = [f for f in index["faces"] if f[0] == "heldout"]
    assert train and held
    assert not {f[1] for f in train} & held_sets
    assert {f[1] for f in held} <= held_sets
    assert index["photos"]["train"] + index["photos"]["heldout"] + index["skipped"] == 12
    assert index["photos"]["train"] == 12 - 2 * len(held_sets)
    bank = RF.load_bank("train", tmp_path / "bank", build=False)
    assert set(bank.faces) and not set(bank.faces) & held_sets


def test_the_bank_takes_the_corrected_labels(tmp_path):
    """A label fix (datasets/labels/fixes) changes the kind the bank files its face under, as it changes the
    detector's data; a fix for a photo the shared folder lacks is refused."""
    from mjtable.datasets.label_fixes import Fix, StaleFix
    names = [f"{395000000 + 10_000 * k}_1_{k}_n" for k in range(4)]
    shared = _fake_shared(tmp_path, names)
    photo = f"{names[1]}_jpg.rf.{1:04x}.jpg"                    # its tile is labelled 'm1' (class 1)
    m1, m9 = T.make(T.MAN, 1), T.make(T.MAN, 9)
    fix = Fix(photo, 230 / 640, 240 / 640, m1, m9, "corner index 9")
    kinds = {}
    for name, fixes in (("as labelled", {}), ("fixed", {photo: [fix]})):
        index = RF.build_bank(tmp_path / name, shared, heldout=0.25, seed=0, riichi=False, fixes=fixes)
        kinds[name] = sorted(f[2] for f in index["faces"])
    assert m1 in kinds["as labelled"] and m9 not in kinds["as labelled"]
    assert kinds["fixed"] == sorted([m9 if k == m1 else k for k in kinds["as labelled"]])
    with pytest.raises(StaleFix):
        RF.build_bank(tmp_path / "stale", shared, riichi=False, fixes={"gone.jpg": [fix]})

def test_real_split_follows_prepare_real_chinese():
    src = RF.shared_dir() / "data" / RF.CMD / "photos" / "images"
    if not src.is_dir():
        pytest.skip(f"no shared {RF.CMD} photos beside the repository (../shared or $MJTABLE_SHARED)")
    from mjtable.datasets.realphotos import source_photo, split_sources
    files = sorted(p.name for p in src.glob("*.jpg"))
    sp = RF.split_chinese(files)
    assert sp.heldout_photos == split_sources(files, 0.25, 0)       # prepare_real_chinese's held-out originals
    sides = {source_photo(f): sp.side(source_photo(f)) for f in files}
    assert {s for s, side in sides.items() if side == "heldout"} == sp.heldout_photos
    assert not {sp.sets[s] for s, side in sides.items() if side == "train"} & sp.heldout_sets


def _tiny_bank():
    """A bank of made-up faces for every kind, in two sets, and a table patch."""
    rng = np.random.default_rng(0)
    bank = RF.RealBank("heldout")
    for s in ("a", "b"):
        bank.faces[s] = {t: [rng.integers(0, 255, (40, 30, 3), np.uint8) for _ in range(2)]
                         for t in range(T.N_KINDS + 8) if s == "a" or t % 2}
    bank.patches["a"] = [np.full((112, 112, 3), (200, 210, 220), np.uint8)]
    return bank


@pytest.mark.parametrize("seat_view,size", [(True, (720, 1280)), (True, (1024, 576)), (False, (640, 640))])
def test_real_table_labels_every_tile_with_seat_and_group(seat_view, size):
    from mjtable.datasets.realtable import real_table
    for seed in range(2):
        img, gt, angles = real_table(_tiny_bank(), random.Random(seed), "x.jpg", size, seat_view=seat_view)
        assert img.shape[:2] == size[::-1] and len(angles) == len(gt.objects) > 40
        for o in gt.objects:
            assert o.seat in SEAT_ANGLE
            assert o.group in GROUPS or (o.group.startswith("meld:") and o.group[5:].isdigit())
            x1, y1, x2, y2 = o.box
            assert 0 <= x1 < x2 <= size[0] and 0 <= y1 < y2 <= size[1]
        me = gt.table.player("self")
        assert me.concealed is not None and me.winning_tile is not None      # the won hand lies face up
        shown = sorted(o.kind for o in gt.objects if o.seat == "self" and o.group == "concealed")
        assert shown == sorted(me.concealed)
        counts = np.bincount([o.kind for o in gt.objects if o.kind < T.N_KINDS], minlength=T.N_KINDS)
        assert counts.max() <= 4


def test_generator_real_art_uses_the_split(monkeypatch):
    from mjtable.datasets import generate
    monkeypatch.setitem(generate._REAL, "heldout", _tiny_bank())
    img, gt, _ = generate.make_scene("seat", 3, 0, 1280, portrait=True, art="real", split="heldout")
    assert img.shape[:2] == (1280, 720) and gt.kind == "seat"
    again, _, _ = generate.make_scene("seat", 3, 0, 1280, portrait=True, art="real", split="heldout")
    assert np.array_equal(img, again)
    with pytest.raises(ValueError):
        generate.make_scene("phone", 3, 0, art="real", split="heldout")


def test_bench_tables_keeps_tables_with_racks_apart():
    """bench_tables --racks measures the same tables with clear racks: their generator stamp says so, so neither
    folder is taken for the other."""
    from scripts.bench_tables import made_as
    plain, racks = made_as(True, False), made_as(True, False, racks=True)
    assert racks == {**plain, "racks": True} and "racks" not in plain


def test_bench_tables_end_to_end(tmp_path):
    if not (RF.shared_dir() / "data" / RF.CMD / "data.yaml").exists():
        pytest.skip(f"no shared {RF.CMD} beside the repository (../shared or $MJTABLE_SHARED): no face bank")
    pytest.importorskip("albumentations", reason="the train extra (albumentations): bench_tables renders clutter")
    from tests.script_run import run_script
    p = run_script("bench_tables", "--n", "1", "--seed", "7707", "7717", "--views", "portrait", "--data", tmp_path,
                   "--workers", "1", "--json")
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)["portrait"]          # one table of each seed, totalled
    assert r["n"] == 2 and [len(list((tmp_path / "bench_tables" / f"portrait_{s}").glob("gt/*.json")))
                            for s in (7707, 7717)] == [1, 1]
    model, truth = r["runtime"], r["gt boxes"]
    assert truth["tiles"] == model["tiles"] > 60
    assert truth["right"] == truth["tiles"]                 # perfect boxes are every tile, read right
    assert 0 <= model["right"] <= model["tiles"]
    assert model["every"] <= model["self"] <= 2
    assert truth["self_legal"] == truth["self"] and 0 <= model["self_legal"] <= 2   # sure tiles: nothing offered


def test_bench_tables_refuses_a_training_seed_or_a_seed_given_twice(tmp_path, capsys):
    """Seeds a training set was made with would be measured as unseen; a seed given twice would count its tables
    twice. Either is one line and exit 2, before any table is made."""
    from scripts.bench_tables import main
    for seeds in (["7707", "101"], ["7707", "7707"]):
        assert main(["--seed", *seeds, "--data", str(tmp_path)]) == 2
        assert capsys.readouterr().err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []
