"""`mjtable evaluate` (and its old name, scripts/evaluate_detector.py) on the tiny fixture set
tests/fixtures/detset (3 generated scenes, 148 tiles)."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mjtable import errors
from mjtable.scoring import tiles as T
from mjtable.vision.evaluate import list_samples
from mjtable.vision.labels import DatasetError, read_yolo, read_yolo_rows

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = "scripts.evaluate_detector"
DET = Path(__file__).parent / "fixtures" / "detset"
NAMES = DET / "data.yaml"
N_TILES = sum(len(p.read_text().split("\n")) - 1 for p in (DET / "labels").glob("*.txt"))


def run(*args, via=("-m", "mjtable.cli", "evaluate")):
    p = subprocess.run([sys.executable, *via, *map(str, args)], capture_output=True, text=True, cwd=ROOT,
                       timeout=300)
    return p.returncode, p.stdout, p.stderr


def test_the_script_is_the_command_under_its_old_name():
    args = (DET, "--names", NAMES, "--predictions", DET / "labels", "--json")
    assert run(*args, via=("-m", SCRIPT)) == run(*args)


def run_json(*args):
    rc, out, err = run(*args, "--json")
    assert rc == 0, err
    return json.loads(out)


def test_ground_truth_as_predictions_scores_one():
    r = run_json(DET, "--names", NAMES, "--predictions", DET / "labels")
    assert r["images"] == 3 and r["ground_truth"] == r["predictions"] == N_TILES == 148
    assert r["precision"] == r["recall"] == r["map50"] == r["map50_95"] == 1.0
    assert r["worst_confusions"] == [] and r["ms_per_image"] is None
    assert r["per_class"]["back"]["ground_truth"] == 80


def test_polygons_and_another_naming_scheme_give_the_same_answer(tmp_path):
    """Relabel the set with shuffled class indices, riichi-style names and polygon rows: nothing may change."""
    rng = np.random.default_rng(0)
    perm = rng.permutation(T.N_CLASSES)                      # new index of each tile id
    riichi = {0: "man", 1: "pin", 2: "sou"}
    honours = ["east", "south", "west", "north", "haku", "hatsu", "chun"]
    name_of = {t: (f"{T.rank(t)}{riichi[T.suit(t)]}" if t < 27 else honours[t - 27] if t < 34 else T.code(t))
               for t in range(T.N_TILES)} | {T.BACK: "back"}
    data = tmp_path / "set"
    shutil.copytree(DET / "images", data / "images")
    (data / "labels").mkdir()
    for p in (DET / "labels").glob("*.txt"):
        rows = []
        for line in p.read_text().split("\n"):
            if not line.strip():
                continue
            c, cx, cy, w, h = line.split()
            cx, cy, w, h = map(float, (cx, cy, w, h))
            x1, y1, x2, y2 = cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2
            rows.append(f"{perm[int(c)]} {x1} {y1} {x2} {y1} {x2} {y2} {x1} {y2}")
        (data / "labels" / p.name).write_text("\n".join(rows) + "\n")
    names = {int(perm[t]): name_of[t] for t in range(T.N_CLASSES)}
    (tmp_path / "names.yaml").write_text("names:\n" + "".join(f"  {k}: {names[k]}\n" for k in sorted(names)))
    new = run_json(data, "--names", tmp_path / "names.yaml", "--predictions", data / "labels")
    old = run_json(DET, "--names", NAMES, "--predictions", DET / "labels")
    assert new["map50"] == new["map50_95"] == 1.0
    assert {k: v["ground_truth"] for k, v in new["per_class"].items()} == \
        {k: v["ground_truth"] for k, v in old["per_class"].items()}


def test_dropping_half_the_predictions_gives_the_computed_recall_and_ap(tmp_path):
    """Keep every other label row as a prediction (conf 0.9): precision 1, recall = kept/total,
    and each class's AP = (number of the 101 recall points <= its recall) / 101."""
    pred = tmp_path / "pred"
    pred.mkdir()
    kept = {}
    total = {}
    for p in (DET / "labels").glob("*.txt"):
        rows = [r for r in p.read_text().split("\n") if r.strip()]
        keep = rows[::2]
        (pred / p.name).write_text("".join(r + " 0.9\n" for r in keep))
        for r in rows:
            total[int(r.split()[0])] = total.get(int(r.split()[0]), 0) + 1
        for r in keep:
            kept[int(r.split()[0])] = kept.get(int(r.split()[0]), 0) + 1
    r = run_json(DET, "--names", NAMES, "--predictions", pred)
    assert r["precision"] == 1.0
    assert r["recall"] == pytest.approx(sum(kept.values()) / sum(total.values()), abs=1e-4)
    expected_ap = {c: (np.floor(100 * kept.get(c, 0) / n + 1e-9) + 1) / 101 if kept.get(c) else 0.0
                   for c, n in total.items()}
    for c, ap in expected_ap.items():
        assert r["per_class"][T.code(c)]["ap50"] == pytest.approx(ap, abs=1e-4)
        assert r["per_class"][T.code(c)]["ap50_95"] == pytest.approx(ap, abs=1e-4)
    assert r["map50"] == pytest.approx(np.mean(list(expected_ap.values())), abs=1e-4)
    missed = {c["truth"]: c["count"] for c in r["worst_confusions"] if c["predicted"] is None}
    assert missed["back"] == total[T.BACK] - kept[T.BACK]


def test_text_report_lists_overall_per_class_and_confusions(tmp_path):
    pred = tmp_path / "pred"
    shutil.copytree(DET / "labels", pred)
    p = next(iter(sorted(pred.glob("phone*.txt"))))
    rows = p.read_text().split("\n")
    c = int(rows[0].split()[0])
    wrong = 0 if c != 0 else 1
    rows[0] = f"{wrong} " + " ".join(rows[0].split()[1:])       # one tile read as another kind
    p.write_text("\n".join(rows))
    rc, out, err = run(DET, "--names", NAMES, "--predictions", pred)
    assert rc == 0, err
    assert "mAP50" in out and "mAP50-95" in out and "back 牌背" in out
    assert f"{T.code(c)} read as {T.code(wrong)}" in out


@pytest.mark.parametrize("setup, msg", [
    (lambda d: d / "missing", "no such folder"),
    (lambda d: (d / "set").mkdir() or d / "set", "no images/ folder"),
    (lambda d: [(d / "set" / x).mkdir(parents=True) for x in ("images", "labels")] and d / "set", "no images"),
])
def test_bad_folders_give_one_line_and_exit_3(tmp_path, setup, msg):
    rc, out, err = run(setup(tmp_path), "--names", NAMES, "--predictions", DET / "labels")
    assert rc == errors.EXIT_INPUT and out == "" and err.startswith("mjtable: error: ")
    assert msg in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_bad_names_and_labels_give_one_line(tmp_path):
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("names: [1m, dragon]\n")
    rc, _, err = run(DET, "--names", bad_yaml, "--predictions", DET / "labels")
    assert rc == errors.EXIT_INPUT and "dragon" in err and len(err.strip().splitlines()) == 1
    rc, _, err = run(DET, "--names", tmp_path / "none.yaml", "--predictions", DET / "labels")
    assert rc == errors.EXIT_INPUT and "cannot read names file" in err
    data = tmp_path / "set"
    shutil.copytree(DET, data)
    (data / "labels" / "phone_424242_000000.txt").write_text("0 0.5 0.5 0.1\n")
    rc, _, err = run(data, "--names", NAMES, "--predictions", DET / "labels")
    assert rc == errors.EXIT_INPUT and "phone_424242_000000.txt:1" in err and len(err.strip().splitlines()) == 1


def test_read_yolo_rows_boxes_polygons_and_errors(tmp_path):
    p = tmp_path / "a.txt"
    p.write_text("1 0.5 0.5 0.2 0.4\n\n0 0.1 0.1 0.3 0.1 0.3 0.2 0.1 0.2\n2 0.5 0.5 0.2 0.2 0.7\n")
    boxes, cls, conf = read_yolo_rows(p, {0: 10, 1: 11, 2: 12}, 200, 100, with_conf=True)
    np.testing.assert_allclose(boxes, [[80, 30, 120, 70], [20, 10, 60, 20], [80, 40, 120, 60]])
    assert cls.tolist() == [11, 10, 12] and conf.tolist() == [1.0, 1.0, 0.7]
    with pytest.raises(DatasetError, match="a.txt:4: want 'class cx cy w h' or a polygon"):
        read_yolo_rows(p, {0: 10, 1: 11, 2: 12}, 200, 100)           # labels have no confidence column
    p.write_text("5 0.5 0.5 0.2 0.2\n")
    with pytest.raises(DatasetError, match="class 5 is not in the names file"):
        read_yolo_rows(p, {0: 10}, 10, 10)
    p.write_text("0 50 50 20 20\n")
    with pytest.raises(DatasetError, match="normalised"):
        read_yolo_rows(p, {0: 10}, 10, 10)
    assert read_yolo_rows(tmp_path / "none.txt", {0: 1}, 10, 10)[0].shape == (0, 4)
    # the project's own folders are labelled in tile ids: read_yolo takes the classes as they are
    p.write_text("41 0.5 0.5 0.2 0.4\n3 0.1 0.1 0.3 0.1 0.3 0.2 0.1 0.2\n")
    boxes, kinds = read_yolo(p, 200, 100)
    np.testing.assert_allclose(boxes, [[80, 30, 120, 70], [20, 10, 60, 20]])
    assert kinds.tolist() == [41, 3]
    p.write_text("-1 0.5 0.5 0.2 0.4\n")
    with pytest.raises(DatasetError, match="class -1 is not a class index"):
        read_yolo(p, 10, 10)


@pytest.mark.parametrize("row, msg", [("nan 0.5 0.5 0.1 0.1", "class nan is not"), ("inf 0.5 0.5 0.1 0.1", "class inf"),
                                      ("1e400 0.5 0.5 0.1 0.1", "class 1e400"),
                                      ("0 0.5 0.5 -0.1 -0.1", "width and height must be over 0"),
                                      ("0 0.5 0.5 0 0.1", "width and height"),
                                      ("0 0.5 0.5 0.1 0.1 nan", "confidence"), ("0 0.5 0.5 0.1 0.1 -3", "confidence")])
def test_label_rows_no_tile_has_are_refused_naming_the_row(tmp_path, row, msg):
    p = tmp_path / "a.txt"
    p.write_text(row + "\n")
    with pytest.raises(DatasetError, match=msg) as e:
        read_yolo_rows(p, {0: 10}, 100, 100, with_conf=True)
    assert "a.txt:1" in str(e.value)


def test_a_label_file_or_model_that_is_a_fifo_is_refused_unread(tmp_path):
    import os
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(DatasetError, match="not a regular file"):
        read_yolo_rows(tmp_path / "fifo", {0: 10}, 100, 100)
    from mjtable.vision.inference import open_session
    from mjtable.vision.yolo_decode import ModelError
    with pytest.raises(ModelError, match="not a regular file"):
        open_session(tmp_path / "fifo", 1)


def test_list_samples_pairs_images_with_labels():
    s = list_samples(DET)
    assert [x.image.name for x in s] == sorted(p.name for p in (DET / "images").iterdir())
    assert all(x.label.exists() for x in s)


def test_detector_predictor_feeds_detections_through_the_same_pipeline():
    """A stand-in detector returning the labels as Detections (one mislabelled, one extra back) —
    the path the real model takes in the script."""
    from mjtable.vision.evaluate import detector_predictor, evaluate
    from mjtable.vision.names import load_names
    from mjtable.vision.types import Detection
    import cv2

    mapping = load_names(NAMES)

    class Fake:
        def detect(self, img):
            h, w = img.shape[:2]
            s = next(x for x in list_samples(DET) if cv2.imread(str(x.image)).shape == img.shape
                     and np.array_equal(cv2.imread(str(x.image)), img))
            boxes, kinds, _ = read_yolo_rows(s.label, mapping, w, h)
            dets = [Detection(tuple(b), int(k), "upright", 0.9) for b, k in zip(boxes, kinds)]
            if s.image.name.startswith("phone_424242_000000"):
                b = dets[0]
                dets[0] = Detection(b.box, (b.kind + 1) % T.BACK, "upright", 0.8)
                dets.append(Detection((0.0, 0.0, 5.0, 5.0), T.BACK, "face_down", 0.3))
            return dets

    rep = evaluate(DET, mapping, detector_predictor(Fake()), lambda p: cv2.imread(p))
    r = rep.result
    assert r.n_gt == 148 and r.n_pred == 149
    assert r.precision == pytest.approx(147 / 149) and r.recall == pytest.approx(147 / 148)
    assert rep.ms_per_image is not None and rep.ms_per_image >= 0
    kinds = [c for c in r.worst_confusions() if c.truth is not None and c.predicted is not None]
    assert len(kinds) == 1 and kinds[0].count == 1 and kinds[0].predicted == (kinds[0].truth + 1) % T.BACK


def test_detector_figures_with_and_without_an_overhead_locator():
    """scripts/evaluate_detector_figures.py --compare-overhead prints each variant's mAP and both speeds (any
    locator file stands in for the overhead one here)."""
    p = subprocess.run([sys.executable, "-m", "scripts.evaluate_detector_figures", "--synth", str(DET),
                        "--real", str(DET / "missing"), "--compare-overhead",
                        "--overhead-locator", str(ROOT / "models" / "tile_locator.onnx")],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert p.returncode == 0, p.stderr
    assert "== one locator: " in p.stdout and "== with overhead locator: " in p.stdout
    assert "(overhead frames: tile_locator_int8.onnx + tile_classifier_overhead_int8.onnx)" in p.stdout
    assert p.stdout.count(f"synthetic test (3 images, {N_TILES} tiles): mAP50 ") == 2
    assert "speed, overhead 640x640" in p.stdout and "with overhead locator" in p.stdout.splitlines()[-1]


def test_detector_figures_compare_routing():
    """--compare-routing: guessing without and with the view router, and told the kind, timed side by side."""
    p = subprocess.run([sys.executable, "-m", "scripts.evaluate_detector_figures", "--synth", str(DET),
                        "--real", str(DET / "missing"), "--compare-routing"],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert p.returncode == 0, p.stderr
    assert "== no view router: " in p.stdout and "== view router: " in p.stdout
    last = p.stdout.splitlines()[-1]
    assert "speed, overhead 640x640" in last and "no view router" in last and "told the kind" in last


def test_detector_figures_compare_refine():
    """--compare-refine: the committed box refiner off and on, each variant's mAP and both speeds; the refined
    run names the refiner it used."""
    p = subprocess.run([sys.executable, "-m", "scripts.evaluate_detector_figures", "--synth", str(DET),
                        "--real", str(DET / "missing"), "--compare-refine"],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert p.returncode == 0, p.stderr
    heads = [line for line in p.stdout.splitlines() if line.startswith("== ")]
    assert len(heads) == 2 and heads[0].startswith("== no refiner: ") and heads[1].startswith("== box refiner: ")
    assert "tile_refiner" not in heads[0] and heads[1].endswith(" + tile_refiner_int8.onnx")
    assert p.stdout.count(f"synthetic test (3 images, {N_TILES} tiles): mAP50 ") == 2
    last = p.stdout.splitlines()[-1]
    assert "speed, overhead 640x640" in last and "no refiner" in last and "box refiner" in last
