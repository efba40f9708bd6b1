"""mjtable.vision.box_precision: covered edges, rows, the row fit, the noise and bound corrections, and
scripts/box_precision.py on the tiny fixture set tests/fixtures/detset (3 generated scenes)."""
import json
from pathlib import Path

import numpy as np

from mjtable.vision.box_precision import (Frame, covered, covered_exact, edge_errors, group_bias_removed,
                                          label_groups, map50_95, noisy_labels, overlap_depth, ranked_by_iou, row_fit,
                                          rows, rows_fitted_and_centred, with_free_edge_errors, without_frame_shift)
from tests.script_run import run_script

DET = Path(__file__).parent / "fixtures" / "detset"


def row_of(n, x0=10.0, step=21.0, w=22.0, h=30.0, y0=50.0):
    """n boxes left to right, each reaching w - step px over the next one's left edge."""
    return np.array([[x0 + i * step, y0, x0 + i * step + w, y0 + h] for i in range(n)])


def frame(labels, boxes, kinds=None):
    kinds = np.zeros(len(labels), int) if kinds is None else kinds
    return Frame("t", "overhead", labels, kinds, boxes, kinds[:len(boxes)], np.linspace(0.9, 0.5, len(boxes)))


def test_covered_edges_of_a_row_and_a_lone_tile():
    b = np.vstack([row_of(3), [[300, 300, 322, 330]]])
    c = covered(b)
    # left, top, right, bottom: the first tile's right edge is under the second, the last's left edge under
    # the middle one's body; the lone tile has nothing over it
    assert c.tolist() == [[False, False, True, False], [True, False, True, False], [True, False, False, False],
                          [False, False, False, False]]
    d = overlap_depth(b)
    assert np.allclose(d[0, 2], 1.0) and np.isneginf(d[3]).all()
    # a neighbour stopping 2 px short is beside the edge, not over it
    b2 = row_of(2, step=24.0)
    assert np.allclose(overlap_depth(b2)[0, 2], -2.0) and not covered(b2).any()


def test_covered_looks_up_and_down_as_well():
    col = np.array([[0, 0, 22, 30], [0, 29, 22, 59]], float)
    assert covered(col).tolist() == [[False, False, False, True], [False, True, False, False]]


def test_rows_follow_touching_like_sized_boxes_only():
    b = np.vstack([row_of(5), row_of(3, y0=200), [[115, 50, 155, 80]]])   # a wider box touching the first row
    r = sorted(rows(b, 0), key=len)
    assert r == [[5, 6, 7], [0, 1, 2, 3, 4]]
    assert rows(b, 1) == []
    # the same row turned upright is found along y
    assert rows(b[:5][:, [1, 0, 3, 2]], 1) == [[0, 1, 2, 3, 4]]


def test_row_fit_brings_noisy_edges_to_the_row_and_leaves_short_rows_alone():
    rng = np.random.default_rng(1)
    truth = row_of(8)
    noisy = truth + rng.normal(0, 0.4, truth.shape)
    fitted = row_fit(noisy)
    assert np.abs(fitted - truth).mean() < 0.6 * np.abs(noisy - truth).mean()
    short = noisy[:3]
    assert np.array_equal(row_fit(short), short)
    # one box far off the row's line does not pull the others
    bad = noisy.copy()
    bad[3, 3] += 6.0
    assert np.abs(row_fit(bad)[[0, 1, 2, 4, 5, 6, 7]] - truth[[0, 1, 2, 4, 5, 6, 7]]).mean() < 0.3


def test_rows_fitted_and_centred_remove_a_rows_shared_error():
    labels = row_of(6)
    shift = labels + [0.5, -0.3, 0.7, 0.2]                       # a row's shared error goes
    f = frame(labels, shift)
    assert np.allclose(rows_fitted_and_centred(f), labels)
    tilt = labels.copy()
    tilt[:, 2] += 0.1 * np.arange(6)                             # an error growing along the row keeps its trend
    expect = labels.copy()
    expect[:, 2] += 0.1 * (np.arange(6) - 2.5)
    assert np.allclose(rows_fitted_and_centred(frame(labels, tilt)), expect)
    rng = np.random.default_rng(3)
    noisy = labels + rng.normal(0, 0.3, labels.shape)            # tile-to-tile noise shrinks
    out = rows_fitted_and_centred(frame(labels, noisy))
    assert 0 < np.abs(out - labels).mean() < np.abs(noisy - labels).mean()
    short = frame(labels[:3], shift[:3])                         # rows under 4 tiles stay as detected
    assert np.array_equal(rows_fitted_and_centred(short), shift[:3])


def test_group_bias_removed_takes_out_what_4_or_more_tiles_of_a_group_share(tmp_path):
    row = row_of(6)
    lone = np.array([[300, 300, 322, 330], [400, 300, 422, 330]], float)
    labels = np.vstack([row, lone])
    boxes = labels + [0.4, -0.2, 0.6, 0.3]
    f = frame(labels, boxes)
    assert np.array_equal(group_bias_removed(f), boxes)            # no groups known: as detected
    f.label_groups = ["self wall"] * 6 + ["self flower"] * 2
    out = group_bias_removed(f)
    # the wall's left edges: 5 covered (shared error removed) and 1 free (alone: kept); right edges likewise
    assert np.allclose(out[1:6, 0], labels[1:6, 0]) and np.allclose(out[0, 0], boxes[0, 0])
    assert np.allclose(out[0:5, 2], labels[0:5, 2]) and np.allclose(out[5, 2], boxes[5, 2])
    assert np.allclose(out[:6, [1, 3]], labels[:6, [1, 3]])      # 6 free tops and bottoms
    assert np.array_equal(out[6:], boxes[6:])                    # two flowers are too few to share an error
    # read from a scene's ground truth: seat and group (a meld's number dropped) of the object with that box
    gt = tmp_path / "s.json"
    gt.write_text(json.dumps({"objects": [{"box": [0, 0, 10, 10], "seat": "left", "group": "meld:1"},
                                          {"box": [20, 0, 30, 10], "seat": "self", "group": "discard"}]}))
    assert label_groups(gt, np.array([[20.1, 0, 30, 10], [0, 0, 10, 10.1]])) == ["self discard", "left meld"]
    assert label_groups(tmp_path / "none.json", labels) is None


def test_noise_and_bounds_act_on_matched_boxes_only():
    labels = np.vstack([row_of(4), [[300, 300, 322, 330]]])
    boxes = labels + [0.8, 0.0, 0.8, 0.0]                      # every box 0.8 px to the right
    boxes = np.vstack([boxes, [[500, 500, 520, 530]]])           # and a false positive
    f = frame(labels, boxes)
    j, ok = f.match
    assert ok.tolist() == [True] * 5 + [False] and j[:5].tolist() == [0, 1, 2, 3, 4]
    rng = np.random.default_rng(0)
    assert np.array_equal(noisy_labels(f, 0.0, rng)[:5], labels)
    assert np.array_equal(noisy_labels(f, 0.0, rng)[5], boxes[5])
    assert np.abs(noisy_labels(f, 0.5, rng)[:5] - labels).mean() > 0.2
    assert np.allclose(without_frame_shift(f)[:5], labels)       # a shift shared by the frame is all the error
    ex = covered_exact(f)
    assert np.allclose(ex[0], [10.8, 50, 32, 80])                # only the covered right edge is set to its label
    assert np.allclose(ex[4], boxes[4])                          # the lone tile: nothing covered
    e, k = edge_errors([f])["covered"]
    assert len(e) == 6 and np.allclose(e, 0.8)                   # 3 right edges and 3 left edges, each +0.8
    e, k = edge_errors([f])["free"]
    assert len(e) == 14 and sorted(set(k.tolist())) == [0, 1, 2, 3]


def test_map_falls_with_the_noise_and_free_edge_errors_are_drawn_from_the_free_edges():
    labels = np.vstack([row_of(6, y0=y) for y in (0.0, 40.0, 80.0)])
    kinds = np.arange(len(labels)) % 3
    f = frame(labels, labels.copy(), kinds)
    rng = np.random.default_rng(0)
    assert map50_95([f]) == 1.0
    assert map50_95([f], lambda fr: noisy_labels(fr, 1.0, rng)) < map50_95([f], lambda fr: noisy_labels(fr, 0.2, rng))
    # two boxes for one label: the looser one first by confidence; ranked by fit, the tight one comes first
    two = frame(labels[:1], np.vstack([labels[:1] + [0, 0, 3, 0], labels[:1]]), kinds[:1])
    two.kinds = np.zeros(2, int)
    two.confidences = np.array([0.9, 0.5])
    assert map50_95([two]) < 1.0 and map50_95([two], confidences_of=ranked_by_iou) == 1.0
    g = frame(labels, labels + [0.0, 0.0, 0.0, 1.5], kinds)     # every bottom edge (all free) 1.5 px low
    out = with_free_edge_errors([g], rng)(g)
    assert np.allclose(out - labels, [0, 0, 0, 1.5])


def test_script_on_the_fixture_set_and_on_a_bad_folder(tmp_path):
    p = run_script("box_precision", "--synth", DET, timeout=300)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "== all: 3 frames" in out and "== overhead: 1 frames" in out and "== phone: 2 frames" in out
    assert out.count("mAP50-95 as detected") == 3 and "Gaussian noise" in out and "rows fitted" in out \
        and "ranked by how well" in out
    p = run_script("box_precision", "--synth", tmp_path, timeout=60)
    assert p.returncode == 2 and "Traceback" not in p.stderr and "no images/ and labels/" in p.stderr
    p = run_script("box_precision", "--synth", DET, "--refiner", tmp_path / "r.onnx", timeout=60)
    assert p.returncode == 2 and "Traceback" not in p.stderr and "no refiner at" in p.stderr


def test_script_without_the_refiner_reads_the_locators_boxes():
    def first_map(*extra):
        p = run_script("box_precision", "--synth", DET, *extra, timeout=300)
        assert p.returncode == 0, p.stderr
        return p.stdout.split("mAP50-95 as detected ")[1].split(";")[0]
    assert first_map("--refiner", "none") != first_map()
