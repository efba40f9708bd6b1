"""mjtable.vision.metrics against hand-computed values (and, where installed, ultralytics' own AP)."""
import math

import numpy as np
import pytest

from mjtable.vision.metrics import (IOU_THRESHOLDS, Confusion, DetectionEvaluator, ap_101, average_precision, box_iou,
                            confusion_matrix, match_image, worst_confusions)


def test_box_iou_known_values():
    a = [[0, 0, 10, 10]]
    b = [[0, 0, 10, 10], [2, 0, 12, 10], [10, 10, 20, 20], [5, 5, 15, 15], [0, 0, 0, 0]]
    iou = box_iou(a, b)
    assert iou.shape == (1, 5)
    np.testing.assert_allclose(iou[0], [1.0, 80 / 120, 0.0, 25 / 175, 0.0])


def test_perfect_predictions_give_one():
    ev = DetectionEvaluator(num_classes=5)
    gt = np.array([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10]], float)
    ev.add(gt, [0, 1, 1], gt, [0, 1, 1], [0.9, 0.8, 0.7])
    ev.add(gt + 100, [4, 4, 2], gt + 100, [4, 4, 2], [0.3, 0.2, 0.1])
    r = ev.result()
    assert r.map50 == 1.0 and r.map50_95 == 1.0 and r.precision == 1.0 and r.recall == 1.0
    assert sorted(r.per_class) == [0, 1, 2, 4]
    assert r.worst_confusions() == []
    assert np.trace(r.confusion) == 6


def test_shifted_box_counts_only_at_thresholds_below_its_iou():
    # IoU = 80/120 = 0.667: a TP at 0.50 0.55 0.60 0.65, an FP at 0.70 .. 0.95 -> AP50 1, AP50-95 4/10
    tp = match_image([[0, 0, 10, 10]], [3], [[2, 0, 12, 10]], [3], [0.9])
    assert tp[0].tolist() == [t <= 0.65 for t in IOU_THRESHOLDS]
    ev = DetectionEvaluator(num_classes=5)
    ev.add([[0, 0, 10, 10]], [3], [[2, 0, 12, 10]], [3], [0.9])
    r = ev.result()
    assert r.map50 == 1.0
    assert r.map50_95 == pytest.approx(0.4)
    assert r.per_class[3].ap50_95 == pytest.approx(0.4)
    assert r.map_by_iou.tolist() == [1.0 if t <= 0.65 else 0.0 for t in IOU_THRESHOLDS]


def test_false_positive_at_higher_confidence_lowers_ap_by_computed_amount():
    # 2 GT. Ranked: TP(0.9), FP(0.8), TP(0.7): recall/precision (0.5, 1), (0.5, 0.5), (1, 2/3).
    # Envelope: 1 for recall 0..0.50 (51 of the 101 points), 2/3 for 0.51..1 (50 points).
    gt = [[0, 0, 10, 10], [20, 0, 30, 10]]
    preds = [[0, 0, 10, 10], [50, 50, 60, 60], [20, 0, 30, 10]]
    ev = DetectionEvaluator(num_classes=1)
    ev.add(gt, [0, 0], preds, [0, 0, 0], [0.9, 0.8, 0.7])
    expected = (51 * 1 + 50 * (2 / 3)) / 101
    assert ev.result().map50 == pytest.approx(expected)
    # The same FP ranked first: (0, 0), (0.5, 0.5), (1, 2/3) -> envelope 2/3 everywhere.
    ev = DetectionEvaluator(num_classes=1)
    ev.add(gt, [0, 0], preds, [0, 0, 0], [0.9, 0.95, 0.7])
    r = ev.result()
    assert r.map50 == pytest.approx(2 / 3)
    assert r.precision == pytest.approx(2 / 3) and r.recall == 1.0
    # and with no FP at all it is 1: the FP costs exactly 1/3 of AP when ranked first
    ev = DetectionEvaluator(num_classes=1)
    ev.add(gt, [0, 0], [preds[0], preds[2]], [0, 0], [0.9, 0.7])
    assert ev.result().map50 == 1.0


def test_missed_ground_truth_caps_ap_at_reached_recall():
    # 4 GT, 1 correct prediction: recall 0.25 -> points 0..0.25 (26 of 101) have precision 1
    assert average_precision([True], [0.5], 4) == pytest.approx(26 / 101)
    assert average_precision([], [], 3) == 0.0
    assert math.isnan(average_precision([False], [0.5], 0))
    assert ap_101([], []) == 0.0


def test_class_absent_in_ground_truth_is_left_out_of_the_mean():
    ev = DetectionEvaluator(num_classes=10)
    ev.add([[0, 0, 10, 10]], [2], [[0, 0, 10, 10], [30, 30, 40, 40]], [2, 7], [0.9, 0.95])
    r = ev.result()
    assert r.map50 == 1.0 and r.map50_95 == 1.0          # class 7 has no GT: not a zero in the mean
    assert r.precision == 0.5 and r.recall == 1.0         # but its FP still counts in precision
    assert r.per_class[7].n_gt == 0 and math.isnan(r.per_class[7].ap50)
    # a class present in GT and never predicted does count as 0
    ev.add([[0, 0, 10, 10]], [5], [], [], [])
    assert ev.result().map50 == pytest.approx(0.5)


def test_matching_is_greedy_by_confidence_and_one_to_one():
    # two predictions on one GT: the higher-confidence one is the TP, the other a duplicate FP
    tp = match_image([[0, 0, 10, 10]], [1], [[1, 0, 11, 10], [0, 0, 10, 10]], [1, 1], [0.9, 0.6])
    assert tp[:, 0].tolist() == [True, False]
    # wrong class never matches
    tp = match_image([[0, 0, 10, 10]], [1], [[0, 0, 10, 10]], [2], [0.9])
    assert not tp.any()


def test_confusion_matrix_rows_truth_cols_predicted_with_background():
    gt = [[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10]]
    preds = [[0, 0, 10, 10], [21, 0, 31, 10], [100, 100, 110, 110]]
    m = confusion_matrix(gt, [3, 1, 2], preds, [5, 1, 0], num_classes=6)
    assert m.shape == (7, 7)
    assert m[3, 5] == 1 and m[1, 1] == 1        # 3 read as 5; 1 right
    assert m[2, 6] == 1                          # GT 2 missed -> background column
    assert m[6, 0] == 1                          # prediction 0 on nothing -> background row
    assert m.sum() == 4
    worst = worst_confusions(m + m, k=5)
    assert worst == [Confusion(None, 0, 2), Confusion(2, None, 2), Confusion(3, 5, 2)]
    assert worst_confusions(m, include_background=False) == [Confusion(3, 5, 1)]


def test_evaluator_rejects_out_of_range_classes():
    ev = DetectionEvaluator(num_classes=3)
    with pytest.raises(ValueError, match="out of range"):
        ev.add([[0, 0, 1, 1]], [3], [], [], [])


def _random_scene(rng, n_classes=5, grid=8):
    """Well-separated GT boxes on a grid; predictions jittered, some missed, some mislabelled, some spurious."""
    gt_boxes, gt_cls, pb, pc, pconf = [], [], [], [], []
    for i in range(grid):
        for j in range(grid):
            x, y = i * 100.0, j * 100.0
            c = int(rng.integers(n_classes))
            gt_boxes.append([x, y, x + 40, y + 60])
            gt_cls.append(c)
            if rng.random() < 0.15:
                continue                               # missed
            d = rng.normal(0, 4, 4)
            pb.append([x + d[0], y + d[1], x + 40 + d[2], y + 60 + d[3]])
            pc.append(c if rng.random() > 0.1 else int(rng.integers(n_classes)))
            pconf.append(float(rng.random()))
            if rng.random() < 0.1:                     # spurious box between tiles
                pb.append([x + 50, y + 70, x + 90, y + 95])
                pc.append(int(rng.integers(n_classes)))
                pconf.append(float(rng.random()))
    return (np.array(gt_boxes), np.array(gt_cls), np.array(pb), np.array(pc), np.array(pconf))


def test_ap_agrees_with_ultralytics_on_random_scenes():
    metrics = pytest.importorskip("ultralytics.utils.metrics")
    rng = np.random.default_rng(7)
    ev = DetectionEvaluator(num_classes=5)
    tps, confs, pcls, tcls = [], [], [], []
    for _ in range(6):
        g, gc, p, pc, conf = _random_scene(rng)
        ev.add(g, gc, p, pc, conf)
        tps.append(match_image(g, gc, p, pc, conf))
        confs.append(conf)
        pcls.append(pc)
        tcls.append(gc)
    r = ev.result()
    tp, conf, pc, tc = map(np.concatenate, (tps, confs, pcls, tcls))
    order = np.argsort(-conf, kind="stable")     # ultralytics sorts too; give it the same order
    out = metrics.ap_per_class(tp[order].astype(float), conf[order], pc[order], tc)
    ap, classes = out[5], out[6]
    ours = np.array([[r.per_class[int(c)].ap50, r.per_class[int(c)].ap50_95] for c in classes])
    # ultralytics integrates a linear interpolation (trapezoid) where COCO takes steps; with ~75 GT per class
    # the two differ by well under one recall step (1/75)
    np.testing.assert_allclose(ours[:, 0], ap[:, 0], atol=0.015)
    np.testing.assert_allclose(ours[:, 1], ap.mean(1), atol=0.015)
    assert r.map50 == pytest.approx(ap[:, 0].mean(), abs=0.01)
    assert 0.5 < r.map50 < 0.95                   # the scene is imperfect, so this compares something


def test_agnostic_recall_and_a_family_mean():
    from mjtable.vision.metrics import DetectionEvaluator
    ev = DetectionEvaluator(num_classes=43)
    gt = [[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10], [60, 0, 70, 10]]
    # the first found as its kind, the second found as another kind, the third missed, the fourth a flower found
    ev.add(gt, [3, 4, 5, 36], [[0, 0, 10, 10], [20, 0, 30, 10], [60, 0, 70, 10], [90, 0, 99, 9]],
           [3, 7, 36, 8], [0.9, 0.8, 0.7, 0.6])
    r = ev.result()
    assert r.agnostic_recall == 0.75
    assert r.mean_ap50([34, 35, 36]) == 1.0 and r.mean_ap50([4]) == 0.0
    import math
    assert math.isnan(r.mean_ap50([41]))
