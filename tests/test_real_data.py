"""Loaders of the real-photo material: the Chinese photo set's split by photo and the Camerash crops' labels."""
from pathlib import Path

import cv2
import numpy as np
import pytest

from mjtable.datasets import camerash, realphotos
from mjtable.datasets.label_fixes import Fix, StaleFix
from mjtable.scoring import tiles as T
from mjtable.vision.evaluate import CLOTH, on_cloth
from mjtable.vision.labels import read_crop_labels, tile_names, write_crop_labels
from mjtable.vision.names import load_names
from tests.script_run import run_script


def _photo(path: Path, rows: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), np.full((32, 32, 3), 200, np.uint8))
    lab = path.parent.parent / "labels" / (path.stem + ".txt")
    lab.parent.mkdir(parents=True, exist_ok=True)
    lab.write_text("\n".join(rows) + "\n")


def test_split_by_photo_maps_classes_and_keeps_copies_together(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "data.yaml").write_text("names: ['f1', 'm1', 'p1', 's1', 'z5', 'f8']\n")
    for i in range(8):
        _photo(src / "photos" / "images" / f"p{i}_jpg.rf.a{i}.jpg", [f"{i % 6} 0.5 0.5 0.1 0.2"])
    for k in range(3):                                 # three augmented copies of each of two photos
        _photo(src / "augmented" / "images" / f"p0_jpg.rf.c{k}.jpg", ["1 0.5 0.5 0.1 0.2"])
        _photo(src / "augmented" / "images" / f"q_jpg.rf.c{k}.jpg",
               ["5 0.5 0.5 0.1 0.2", "9 0.1 0.1 0.1 0.1", "0 0.2 0.2 0.4 0.25 0.35 0.6 0.2 0.6"])
    out = tmp_path / "out"
    fix = Fix("p1_jpg.rf.a1.jpg", 0.5, 0.5, 0, 9, "corner index")      # m1 -> p1 in that photo only
    counts = realphotos.prepare_chinese(src, out, heldout=0.5, seed=0, fixes={fix.image: [fix]})
    held = {p.name.split("_jpg.rf.")[0] for p in (out / "heldout" / "images").iterdir()}
    train = {p.name.split("_jpg.rf.")[0] for p in (out / "train" / "images").iterdir()}
    assert len(held) == 4 and not held & train and "q" in train
    assert counts["heldout"] == (4, 4)
    # a held-out photo's augmented copies are trained on nowhere
    assert ("p0" in held) == (not any(p.name.startswith("p0_jpg.rf.c") for p in (out / "train" / "images").iterdir()))
    # labels in tile ids: f1 -> 34, m1 -> 0, f8 -> 41; the unknown class 9 is dropped; a polygon row (a tile
    # labelled by its outline) becomes the box around it
    q = [r.split() for r in (out / "train" / "labels" / "q_jpg.rf.c0.txt").read_text().splitlines()]
    assert q[0] == ["41", "0.5", "0.5", "0.1", "0.2"]
    assert q[1][0] == "34" and [float(x) for x in q[1][1:]] == pytest.approx([0.3, 0.4, 0.2, 0.4])
    assert len(q) == 2
    p1 = next((out / s / "labels" / "p1_jpg.rf.a1.txt") for s in ("train", "heldout")
              if (out / s / "labels" / "p1_jpg.rf.a1.txt").exists())
    assert p1.read_text().split()[0] == "9"
    with pytest.raises(StaleFix):           # a fix for a photo the source lacks
        realphotos.prepare_chinese(src, tmp_path / "out2", 0.5, 0, {"gone.jpg": [fix]})
    assert load_names(out / "names.yaml") == {t: t for t in range(T.N_KINDS + 8)}


def test_squeezed_copy_narrows_each_photo_and_keeps_the_labels(tmp_path):
    src, dst = tmp_path / "bin", tmp_path / "squeezed"
    rows = ["0 0.5 0.5 0.1 0.2", "1 0.2 0.3 0.1 0.2"]
    for i in range(12):
        _photo(src / "images" / f"p{i}.jpg", rows)
    assert realphotos.squeezed_copy(src, dst, seed=3, lo=0.5, hi=0.6) == 12
    shapes = [cv2.imread(str(dst / "images" / f"p{i}.jpg")).shape[:2] for i in range(12)]
    assert {h for h, _ in shapes} == {32}                    # the height kept
    assert {w for _, w in shapes} <= {16, 17, 18, 19}        # the width at 0.5-0.6 of 32 px
    assert len({w for _, w in shapes}) > 1                   # drawn per photo
    assert (dst / "labels" / "p5.txt").read_text().split("\n")[:2] == rows


def test_packed_copy_shrinks_large_photos_to_webp_and_keeps_the_labels(tmp_path):
    src, dst = tmp_path / "bin", tmp_path / "packed"
    rows = ["0 0.5 0.5 0.1 0.2", "1 0.2 0.3 0.1 0.2"]
    _photo(src / "images" / "overhead_1.jpg", rows)
    cv2.imwrite(str(src / "images" / "overhead_2.jpg"), np.full((900, 1200, 3), 90, np.uint8))
    (src / "labels" / "overhead_2.txt").write_text(rows[0] + "\n")
    _photo(src / "images" / "phone_1.jpg", rows)
    assert realphotos.packed_copy(src, dst, "overhead_*", max_side=640) == 2
    assert sorted(p.name for p in (dst / "images").iterdir()) == ["overhead_1.webp", "overhead_2.webp"]
    assert cv2.imread(str(dst / "images" / "overhead_2.webp")).shape[:2] == (480, 640)    # the longer side 640
    assert cv2.imread(str(dst / "images" / "overhead_1.webp")).shape[:2] == (32, 32)      # a small one as it is
    assert (dst / "labels" / "overhead_1.txt").read_text().split("\n")[:2] == rows
    assert not (dst / "labels" / "phone_1.txt").exists()


def test_camerash_labels_map_to_tile_ids():
    m = camerash.camerash_tile
    assert [m(1), m(9), m(10), m(19), m(27)] == [9, 17, 18, 0, 8]
    assert [m(28), m(31), m(32), m(33), m(34)] == [T.EAST, T.NORTH, T.RED, T.GREEN, T.WHITE]
    assert [m(35), m(38), m(39), m(42)] == [34, 37, 38, 41]


def test_a_corrected_upstream_label_is_read_right_only_where_it_is_still_wrong():
    label = camerash.crop_label
    assert label("350.jpg", 8) == 17                    # upstream dots-8, the tile is a 9 of dots
    assert label("350.jpg", 9) == 17 and label("350.jpg", 3) == 11     # upstream fixed or changed: as given
    assert label("351.jpg", 8) == 16


def test_crops_are_read_on_cloth_with_their_box(tmp_path):
    crop = np.zeros((90, 60, 3), np.uint8)
    img, box = on_cloth(crop)
    x1, y1, x2, y2 = box
    assert img.shape == (192, 129, 3) and (y2 - y1) == 64 and (x2 - x1) == 43
    assert (img[y1:y2, x1:x2] == 0).all() and (img[0, 0] == CLOTH).all()


def test_evaluate_real_prints_each_classifier_side_by_side(tmp_path):
    """Without data folders it still reads the shared real crops and times a phone photo, per classifier."""
    import json
    from mjtable.vision.detector import CLASSIFIER
    r = run_script("evaluate_real", "--classifier", CLASSIFIER, CLASSIFIER, "--json", "--root", tmp_path)  # no data/
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert list(out) == [str(CLASSIFIER)]                        # the same file twice is one row
    row = out[str(CLASSIFIER)]
    assert 0 < row["phone ms"] < 5000
    crops = row["Camerash crops"]
    assert 0.5 < crops["all"] <= 1.0 and set(crops) >= {"flowers", "characters"}


def _camerash(tmp_path: Path) -> Path:
    """A tiny Camerash-like folder: three set photos of random texture (two photos of set 1, one of set 2) and
    crops cut from them, listed in tiles-data/data.csv with Camerash labels (one row twice)."""
    rng = np.random.default_rng(0)
    src = tmp_path / "camerash"
    for sub in ("raw-images", "raw-tiles", "tiles-data"):
        (src / sub).mkdir(parents=True)
    rows, k = ["image-name,label,label-name"], 0
    for photo in ("1-1.png", "1-2.png", "2.png"):
        img = cv2.resize(rng.integers(0, 256, (40, 60, 3), dtype=np.uint8), (240, 160), interpolation=cv2.INTER_NEAREST)
        cv2.imwrite(str(src / "raw-images" / photo), img)
        for j in range(3):
            k += 1
            cv2.imwrite(str(src / "raw-tiles" / f"{k}.png"), img[20 + 30 * j:60 + 30 * j, 10 + 50 * j:40 + 50 * j])
            rows.append(f"{k}.png,{[1, 35, 42][j]},x")
    rows.append("1.png,1,x")                               # listed twice, counted once
    (src / "tiles-data" / "data.csv").write_text("\n".join(rows) + "\n")
    return src


def test_camerash_crops_found_in_their_set_photo_and_held_out_by_set(tmp_path):
    src = _camerash(tmp_path)
    found = camerash.match_sources(src)
    assert {c: p for c, (p, _) in found.items()} == {f"{k}.png": ["1-1.png", "1-2.png", "2.png"][(k - 1) // 3]
                                                      for k in range(1, 10)}
    assert min(v for _, v in found.values()) > 0.99
    sources_csv = tmp_path / "sources.csv"
    camerash.write_sources(sources_csv, found)
    sources = camerash.read_sources(sources_csv)
    assert [camerash.tile_set(p) for p in ("1-1.png", "1-2.png", "2.png", "10.jpg")] == ["1", "1", "2", "10"]
    out = tmp_path / "out"
    counts = camerash.prepare_crops(src, out, sources, heldout=0.3, seed=0)
    assert sorted(n for n, _ in counts.values()) == [3, 6]              # 9 crops, not 10: the twice-listed one once
    held = read_crop_labels(out / "heldout")
    train = read_crop_labels(out / "train")
    set_of = {f"{k}.png": camerash.tile_set(sources[f"{k}.png"]) for k in range(1, 10)}
    assert not {set_of[p.name] for p, _ in held} & {set_of[p.name] for p, _ in train}   # no set on both sides
    assert all(p.exists() for p, _ in held + train)
    # Camerash labels 1 (dots 1), 35 (spring), 42 (bamboo flower) -> tile ids 9, 34, 41, named as the names file
    tiles = dict((p.name, t) for p, t in held + train)
    assert [tiles[f"{k}.png"] for k in (1, 2, 3)] == [9, 34, 41]
    assert (out / "train" / "labels.csv").read_text().splitlines()[0] == "image,tile,name"
    assert camerash.split_sets({"a": 10, "b": 10, "c": 10, "d": 70}, 0.0, 0) == set()
    assert len(camerash.split_sets({"a": 10, "b": 10, "c": 10}, 0.5, 3)) == 2


def test_committed_camerash_sources_name_a_set_photo_for_every_crop():
    rows = camerash.read_sources()
    assert len(rows) == 628 and all(p for p in rows.values())
    assert {camerash.tile_set(p) for p in rows.values()} == {str(i) for i in range(1, 14)}


def test_evaluate_real_reads_the_held_out_camerash_sets_when_split(tmp_path):
    import json
    from mjtable.vision.detector import CLASSIFIER
    held = tmp_path / "data" / "camerash" / "heldout"                  # where prepare_real_chinese writes them
    (held / "images").mkdir(parents=True)
    for i, tile in enumerate((0, 34, 41)):
        cv2.imwrite(str(held / "images" / f"{i}.png"), np.full((60, 44, 3), 220, np.uint8))
    write_crop_labels(held, [(f"{i}.png", t, tile_names()[t]) for i, t in enumerate((0, 34, 41))])
    r = run_script("evaluate_real", "--classifier", CLASSIFIER, "--json", "--root", tmp_path)
    assert r.returncode == 0, r.stderr
    crops = json.loads(r.stdout)[str(CLASSIFIER)]["Camerash crops"]
    assert crops["crops"] == "held-out sets" and crops["n"] == 3 and crops["n_flowers"] == 2


def test_camerash_photos_held_out_by_set(tmp_path, monkeypatch):
    from PIL import Image
    src, labels = tmp_path / "src", tmp_path / "labels"
    img = np.full((40, 60, 3), 200, np.uint8)
    for folder, name, rows in [("raw-images", "1-1.jpg", ["0 0.5 0.5 0.2 0.4"]),
                               ("raw-images", "1-2.jpg", ["34 0.5 0.5 0.2 0.4"]),
                               ("raw-images", "2.jpg", ["5 0.5 0.5 0.2 0.4"]),
                               ("raw-images", "3.jpg", ["# skip: a drawing"]),
                               ("untagged-images-raw", "TBx_!!1.gif", ["41 0.5 0.5 0.2 0.4"]),
                               ("untagged-images-raw", "TBx_!!1.jpg", ["40 0.4 0.4 0.2 0.4"]),
                               ("untagged-images-raw", "bams.jpg", ["18 0.5 0.5 0.2 0.4", "42 0.2 0.2 0.1 0.1"])]:
        (src / folder).mkdir(parents=True, exist_ok=True)
        if name.endswith(".gif"):
            Image.fromarray(img).save(src / folder / name)
        else:
            cv2.imwrite(str(src / folder / name), img)
        stem = name if name.startswith("TBx") else Path(name).stem     # two files of one stem: full names
        (labels / folder).mkdir(parents=True, exist_ok=True)
        (labels / folder / f"{stem}.txt").write_text("\n".join(rows) + "\n")
    # prepare_real_chinese held out the crops of set 2
    crops = tmp_path / "crops"
    crops.mkdir()
    (crops / "labels.csv").write_text("image,tile,name\n7.png,5,p6\n")
    monkeypatch.setattr(camerash, "read_sources", lambda: {"7.png": "2.jpg"})
    out = tmp_path / "out"
    counts = camerash.prepare_photos(src, out, heldout=0.5, seed=0, crops_heldout=crops, labels=labels)
    assert counts["train"][0] + counts["heldout"][0] == 6          # '3' is skipped
    assert "1" in counts["train"][1] and "2" in counts["heldout"][1] and "3" not in counts["train"][1]
    listing = [s for s in counts["heldout"][1] if s.startswith("u-")]
    assert listing in (["u-TBx"], ["u-bams"])                       # one of the two listings held out
    split = "heldout" if listing == ["u-TBx"] else "train"
    # the gif and the jpg of one stem keep their own names and their own labels
    assert sorted(p.name for p in (out / split / "images").glob("TBx*")) == ["TBx_!!1_gif.png", "TBx_!!1_jpg.jpg"]
    assert (out / split / "labels" / "TBx_!!1_jpg.txt").read_text().split()[0] == "40"
    assert (out / split / "labels" / "TBx_!!1_gif.txt").read_text().split()[0] == "41"
    assert cv2.imread(str(out / split / "images" / "TBx_!!1_gif.png")).shape == (40, 60, 3)
    assert sorted(p.name for p in (out / "heldout_sets" / "2" / "images").iterdir()) == ["2.jpg"]
    assert (out / "heldout_sets" / "2" / "names.yaml").exists()
    assert (out / "train" / "labels" / "1-2.txt").read_text().split()[0] == "34"
    (out / "keep.txt").write_text("not ours")                       # a rerun removes only what it wrote
    camerash.prepare_photos(src, out, heldout=0.5, seed=0, crops_heldout=crops, labels=labels)
    assert (out / "keep.txt").exists()
    # the command line: without the crops' split it refuses, unless told to hold out listings only
    cli = ("prepare_camerash_photos", "--src", src, "--out", out, "--labels", labels, "--crops-heldout")
    r = run_script(*cli, tmp_path / "none")
    assert r.returncode == 2 and "no held-out crop sets" in r.stderr and "Traceback" not in r.stderr
    r = run_script(*cli, tmp_path / "none", "--no-crop-split")
    assert r.returncode == 0 and "Camerash photos heldout:" in r.stdout, r.stderr
    (labels / "raw-images" / "1-1.txt").write_text("0 0.5 1.5 0.2 0.4\n")       # a box outside the photo
    r = run_script(*cli, crops)
    assert r.returncode == 2 and "1-1.txt: bad row" in r.stderr and "Traceback" not in r.stderr


def test_unlabelled_crops_labelled_only_where_photo_and_classifier_agree(tmp_path, monkeypatch):
    """Crops cut from labelled set photos take their box's kind when the classifier reads the same kind; a crop
    found nowhere, or read otherwise by the classifier, stays unlabelled; the folders follow the photos' split."""
    rng = np.random.default_rng(0)
    src, labels = tmp_path / "src", tmp_path / "labels"
    monkeypatch.setattr(camerash, "LABELS", labels)
    crops_dir = src / "untagged-tiles"
    crops_dir.mkdir(parents=True)
    n = 0
    for name, kinds in (("1-1.jpg", [0, 9, 18]), ("2.jpg", [27, 34, 31])):
        img = np.full((120, 300, 3), 90, np.uint8)
        rows = []
        for i, k in enumerate(kinds):                      # three tiles of random pattern, 60x80, 20 px apart
            x0 = 20 + i * 90
            blobs = rng.integers(0, 255, (8, 6, 3), np.uint8)                 # a face of coarse patches
            img[20:100, x0:x0 + 60] = cv2.resize(blobs, (60, 80), interpolation=cv2.INTER_LINEAR)
            rows.append(f"{k} {(x0 + 30) / 300:.6f} {60 / 120:.6f} {60 / 300:.6f} {80 / 120:.6f}")
        (src / "raw-images").mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(src / "raw-images" / name), img, [cv2.IMWRITE_JPEG_QUALITY, 100])
        (labels / "raw-images").mkdir(parents=True, exist_ok=True)
        (labels / "raw-images" / f"{Path(name).stem}.txt").write_text("\n".join(rows) + "\n")
        for i in range(3):                                 # each tile cut 2 px loose and stretched to 240x320
            x0 = 20 + i * 90
            n += 1
            cv2.imwrite(str(crops_dir / f"{n}.jpg"), cv2.resize(img[18:102, x0 - 2:x0 + 62], (240, 320)))
    cv2.imwrite(str(crops_dir / "7.jpg"), rng.integers(0, 255, (320, 240, 3), np.uint8))   # from no photo
    # the classifier reads crop 2 as another kind and crop 3 with little confidence
    said = {"1.jpg": (0, 0.99), "2.jpg": (5, 0.9), "3.jpg": (18, 0.3), "4.jpg": (27, 0.8), "5.jpg": (34, 0.95),
            "6.jpg": (31, 0.7), "7.jpg": (8, 0.99)}
    monkeypatch.setattr(camerash, "classify_crops", lambda crops, classifier: [said[p.name] for p in crops])
    rows = camerash.label_table(src, None, min_match=0.8, min_p=0.5)
    got = {r["crop"]: r for r in rows}
    assert [got[f"{k}.jpg"]["box_kind"] for k in range(1, 7)] == ["1m", "1p", "1s", "1z", "1f", "5z"]
    assert all(float(got[f"{k}.jpg"]["match"]) > 0.9 for k in range(1, 7)) and float(got["7.jpg"]["match"]) < 0.5
    assert {c for c, r in got.items() if r["label"]} == {"1.jpg", "4.jpg", "5.jpg", "6.jpg"}
    assert got["5.jpg"]["tile"] == 34 and got["5.jpg"]["set"] == "2"
    table = tmp_path / "table.csv"
    camerash.write_table(table, rows)
    assert camerash.read_table(table)[4]["label"] == "1f"
    counts = camerash.write_folders(src, tmp_path / "out", camerash.read_table(table), held={"2"})
    assert counts == {"train": 1, "heldout": 3}
    assert read_crop_labels(tmp_path / "out" / "train") == [(tmp_path / "out" / "train" / "images" / "1.jpg", 0)]
    assert (tmp_path / "out" / "heldout" / "images" / "6.jpg").exists()


def test_committed_crop_pseudo_labels_are_agreements():
    rows = camerash.read_table()
    assert len(rows) == 1050 and len({r["crop"] for r in rows}) == 1050
    labelled = [r for r in rows if r["label"]]
    assert len(labelled) > 800
    assert all(r["label"] == r["box_kind"] == r["classifier_kind"] and float(r["match"]) >= 0.8
               and float(r["classifier_p"]) >= 0.5 and T.code(int(r["tile"])) == r["label"] for r in labelled)


def test_unlabelled_tiles_are_those_of_a_tile_s_size_that_meet_no_label():
    from mjtable.datasets.unlabelled import unlabelled
    labels = np.array([[0, 0, 30, 40], [40, 0, 70, 40]], float)
    found = [(0.9, "general@0", np.array([1, 1, 31, 41.0])),        # the first label's tile
             (0.8, "overhead", np.array([100, 100, 130, 140.0])),   # a loose tile
             (0.6, "general@30", np.array([102, 98, 134, 141.0])),  # the same loose tile, less sure
             (0.7, "overhead", np.array([200, 0, 400, 200.0])),     # far larger than a tile
             (0.7, "overhead", np.array([300, 300, 306, 306.0])),   # far smaller
             (0.5, "general@45", np.array([14, 17, 38, 61.0]))]     # IoU 0.19 with a label, its centre in it
    out = unlabelled(found, labels)
    assert [(s, by) for s, by, _ in out] == [(0.8, "overhead")]
    assert unlabelled(found, np.zeros((0, 4))) == []               # no label: no tile size to trust


def test_added_tiles_go_to_the_binary_labels_only(tmp_path):
    from mjtable.datasets.unlabelled import Added, load_added, write_added
    write_added([Added("a.jpg", 0.7, 0.2, 0.1, 0.12, "overhead", 0.61)], tmp_path / "added" / "set.csv")
    added = load_added("set", tmp_path / "added")
    assert added == {"a.jpg": ["0 0.70000 0.20000 0.10000 0.12000"]}
    src = tmp_path / "src"
    _photo(src / "images" / "a.jpg", [f"{T.BACK} 0.5 0.5 0.1 0.2", "3 0.2 0.5 0.1 0.2"])
    _photo(src / "images" / "b.jpg", ["3 0.2 0.5 0.1 0.2"])
    realphotos.binary_copy(src, tmp_path / "bin", added)
    assert (tmp_path / "bin" / "labels" / "a.txt").read_text().splitlines() == [
        "1 0.5 0.5 0.1 0.2", "0 0.2 0.5 0.1 0.2", "0 0.70000 0.20000 0.10000 0.12000"]
    assert (tmp_path / "bin" / "labels" / "b.txt").read_text().splitlines() == ["0 0.2 0.5 0.1 0.2"]
    assert len((src / "labels" / "a.txt").read_text().splitlines()) == 2      # the tile-id labels keep no added row
    assert load_added("none", tmp_path / "added") == {}
