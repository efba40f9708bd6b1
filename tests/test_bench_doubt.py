"""scripts/bench_doubt.py's figures (mjtable.vision.compare): which misread tiles and wrong hands the doubtful tiles
warn of."""
from __future__ import annotations

import numpy as np

from mjtable.vision.compare import hand_figures, tile_beliefs, tile_figures
from mjtable.vision.types import FACE_DOWN, UPRIGHT, Detection


def _det(box, kind, p):
    return Detection(box, kind, FACE_DOWN if kind == 42 else UPRIGHT, p, ((kind, p),))


def test_tile_beliefs_match_each_labelled_tile_once():
    gt = np.array([[0, 0, 10, 14], [20, 0, 30, 14], [40, 0, 50, 14], [60, 0, 70, 14]], float)
    kinds = np.array([3, 5, 7, 42])
    dets = [_det((0, 0, 10, 14), 3, 0.9),        # right
            _det((1, 0, 11, 14), 4, 0.8),        # a second box on the first tile: matched to nothing
            _det((20, 0, 30, 14), 6, 0.4),       # wrong kind, unsure
            _det((40, 0, 50, 14), 42, 0.7),      # a face-up tile read as a back: wrong and never doubtful
            _det((60, 0, 70, 14), 42, 0.9)]      # a back: not counted
    assert sorted(tile_beliefs(dets, gt, kinds)) == [(False, 0.4), (False, 1.0), (True, 0.9)]
    assert tile_beliefs([], gt, kinds) == []


def test_tile_figures_split_caught_misreads_from_false_alarms():
    f = tile_figures([(True, 0.95), (True, 0.55), (False, 0.3), (False, 0.99)], limits=(0.6, 0.999))
    assert (f["right"], f["wrong"]) == (2, 2)
    assert f["caught"] == {"0.6": 0.5, "0.999": 1.0}
    assert f["false_alarm"] == {"0.6": 0.5, "0.999": 1.0}


def test_hand_figures_count_silent_wrong_scores():
    # (scored right, gave a score, lowest tile probability)
    outcomes = [(True, True, 0.99), (True, True, 0.5), (False, True, 0.95), (False, True, 0.4), (False, False, 1.0)]
    h = hand_figures(outcomes, limits=(0.6, 0.97))
    assert (h["right"], h["wrong"]) == (2, 3)
    assert h["silent"] == {"0.6": 1, "0.97": 0}
    assert h["warned"] == {"0.6": 2, "0.97": 3}
    assert h["false_alarm"] == {"0.6": 1, "0.97": 1}


def test_crop_beliefs_read_real_crops_as_evaluate_crops_does(tmp_path):
    """The committed real riichi tiles (tests/fixtures/real_crops), cut at their boxes into a plain crop folder and
    read on cloth: one belief per crop, read right as often as mjtable.vision.evaluate.read_right counts, each with
    the probability its doubt is judged by (the kind read's; riichi sets have no flowers to be likely)."""
    import csv

    import cv2

    from mjtable.vision.compare import crop_beliefs
    from mjtable.vision.detector import DetectorConfig, TileDetector
    from mjtable.vision.evaluate import on_cloth, read_right
    from mjtable.vision.labels import read_crop_labels, write_crop_labels
    from tests.test_real_crops import FIXTURE
    (tmp_path / "images").mkdir()
    rows = []
    with open(FIXTURE / "labels.csv", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            img = cv2.imread(str(FIXTURE / r["image"]))
            x1, y1, x2, y2 = (round(float(r[k])) for k in ("x1", "y1", "x2", "y2"))
            cv2.imwrite(str(tmp_path / "images" / r["image"]), img[y1:y2, x1:x2])
            rows.append((r["image"], int(r["tile"]), r["name"]))
    write_crop_labels(tmp_path, rows)
    det = TileDetector(DetectorConfig(refiner=None))
    beliefs = crop_beliefs(det, tmp_path)
    listed = read_crop_labels(tmp_path)
    assert len(beliefs) == len(listed) == 18
    assert all(0.0 <= p <= 1.0 for _, p in beliefs)
    items = [(*on_cloth(cv2.imread(str(path))), truth) for path, truth in listed]
    assert sum(ok for ok, _ in beliefs) == read_right(det, items)["all"][0] >= 15


def test_kind_probs_reads_a_box_as_the_runtime_does(monkeypatch):
    """mjtable.vision.evaluate.kind_probs: the first look on the box, the more looks on the box as the refiner moves
    it (not on the box again); without more looks, the first look alone."""
    import cv2

    from mjtable.vision.detector import LOOKS, DetectorConfig, TileDetector, refine_boxes
    from mjtable.vision.evaluate import kind_probs
    from tests.test_real_crops import FIXTURE
    img = cv2.imread(str(FIXTURE / "00_m3.png"))
    box = (3.9, 5.6, 39.4, 58.4)
    det = TileDetector()
    seen = []
    real = det.classify
    monkeypatch.setattr(det, "classify", lambda im, boxes, overhead=False, seat=False, turned=None:
                        seen.append(np.array(boxes)) or real(im, boxes, overhead, seat, turned))
    p = kind_probs(det, img, box)
    first, more = seen
    assert np.allclose(first, [box], atol=1e-4) and len(more) == 1 + len(LOOKS)
    assert np.allclose(more[0], refine_boxes(det.refiner, img, np.array([box], np.float32))[0], atol=1e-3)
    assert not np.allclose(more[0], box, atol=1e-2)
    assert p.shape == (43,) and abs(p.sum() - 1) < 1e-4
    seen.clear()
    one = TileDetector(DetectorConfig(looks=None))
    monkeypatch.setattr(one, "classify", lambda im, boxes, overhead=False, seat=False, turned=None:
                        seen.append(np.array(boxes)) or real(im, boxes, overhead, seat, turned))
    assert np.allclose(kind_probs(one, img, box), real(img, np.array([box], np.float32))[0][0])
    assert len(seen) == 1


def test_bench_phone_counts_photos_with_every_tile_right_or_named_doubtful():
    """scripts/bench_phone.py's figure for the issue's title: a photo counts when every labelled tile was found
    and each is read right or named doubtful (p under the limit); a missed tile or a sure misread spoils it."""
    from scripts.bench_phone import Tile, set_figures

    def tile(truth, read, p):
        probs = np.full(43, (1.0 - p) / 42)
        probs[read] = p
        return Tile(truth, read, probs, "phone")
    photos = [[tile(1, 1, 0.9), tile(2, 2, 0.8)],          # all right
              [tile(1, 1, 0.9), tile(2, 3, 0.4)],          # a misread named doubtful
              [tile(1, 1, 0.9), tile(2, 3, 0.9)],          # a sure misread
              [tile(1, 1, 0.9), None]]                     # a tile missed
    f = set_figures(photos, limit=0.6)
    assert (f["every_tile_right"], f["every_tile_right_or_doubtful"], f["photos_with_silent_misread"]) == (1, 2, 1)
    assert (f["wrong"], f["silent_misreads"]) == (2, 1)


def test_bench_phone_names_a_suit_tile_likely_a_flower_and_keeps_the_baseline_without():
    """A flower of unseen art read as the 1 of bamboo at p 0.7, the eight flowers given 0.24 together: silent by p
    alone (the baseline row), named doubtful by the runtime's rule (vision.types.is_doubtful)."""
    from scripts.bench_phone import Tile, set_figures
    probs = np.zeros(43)
    probs[18], probs[34:42] = 0.7, 0.03
    probs[0] = 1.0 - probs.sum()
    sure = np.zeros(43)
    sure[5] = 1.0
    photos = [[Tile(35, 18, probs, "phone"), Tile(5, 5, sure, "phone")]]
    today, by_p = set_figures(photos), set_figures(photos, flowers=False)
    assert (today["silent_misreads"], today["every_tile_right_or_doubtful"]) == (0, 1)
    assert (by_p["silent_misreads"], by_p["every_tile_right_or_doubtful"]) == (1, 0)
    assert today["right_named_doubtful"] == by_p["right_named_doubtful"] == 0.0


def test_tile_beliefs_judge_a_tile_likely_a_flower_doubtful_at_any_limit():
    """A 1 of bamboo read at p 0.9 while the flowers together get 0.2: its doubt level is 0.0 (vision.types.
    doubt_level), caught at every limit; the same tile with the flowers at 0.05 is judged by its p."""
    from mjtable.vision.types import Detection
    gt = np.array([[0, 0, 10, 14], [20, 0, 30, 14]], float)
    likely = ((35, 0.1), (38, 0.1))
    dets = [Detection((0, 0, 10, 14), 18, "upright", 0.9, ((18, 0.9),), flower=likely),
            Detection((20, 0, 30, 14), 18, "upright", 0.9, ((18, 0.9),), flower=((35, 0.05),))]
    beliefs = tile_beliefs(dets, gt, np.array([35, 18]))
    assert beliefs == [(False, 0.0), (True, 0.9)]
    f = tile_figures(beliefs, limits=(0.5,))
    assert f["caught"] == {"0.5": 1.0} and f["false_alarm"] == {"0.5": 0.0}
