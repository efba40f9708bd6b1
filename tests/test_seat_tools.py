"""Tools for tables shot from a seat: the window cutter for training and the seat-view benchmark."""
from __future__ import annotations

import json

import cv2
import numpy as np

from mjtable.vision.labels import window_rows
from tests.script_run import run_script


def test_window_rows_cut_boxes_to_the_window():
    # a 1280x720 frame; one box inside the window (0, 0, 640, 640), one half out of it, one barely in it
    rows = [[0, 100 / 1280, 100 / 720, 40 / 1280, 60 / 720],
            [42, 640 / 1280, 300 / 720, 40 / 1280, 60 / 720],
            [5, 665 / 1280, 500 / 720, 40 / 1280, 60 / 720]]
    out = [r.split() for r in window_rows(rows, 1280, 720, (0, 0, 640, 640), 0.5)]
    assert [r[0] for r in out] == ["0", "42"]
    x = [float(v) * 640 for v in out[0][1:]]
    assert np.allclose(x, [100, 100, 40, 60], atol=0.01)
    half = [float(v) * 640 for v in out[1][1:]]
    assert np.allclose(half, [630, 300, 20, 60], atol=0.01)          # cut at the window's right edge


def test_window_dataset_writes_windows_with_labels(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    (src / "images").mkdir(parents=True)
    (src / "labels").mkdir()
    cv2.imwrite(str(src / "images" / "a.jpg"), np.full((720, 1280, 3), 90, np.uint8))
    (src / "labels" / "a.txt").write_text("3 0.5 0.5 0.03 0.08\n")
    cv2.imwrite(str(src / "images" / "small.jpg"), np.full((300, 400, 3), 90, np.uint8))   # one window: skipped
    (src / "labels" / "small.txt").write_text("3 0.5 0.5 0.1 0.1\n")
    r = run_script("window_dataset", src, out, "--per-frame", "3", timeout=120)
    assert r.returncode == 0 and "wrote 3 windows" in r.stdout, r.stderr
    images = sorted(p.name for p in (out / "images").iterdir())
    assert images == ["a_w0.jpg", "a_w1.jpg", "a_w2.jpg"]
    assert all(cv2.imread(str(out / "images" / n)).shape == (640, 640, 3) for n in images)
    assert all((out / "labels" / n.replace(".jpg", ".txt")).exists() for n in images)
    r = run_script("window_dataset", tmp_path / "none", out, timeout=120)
    assert r.returncode == 2 and "no images/" in r.stderr and "Traceback" not in r.stderr


def test_bench_seat_view_prints_each_way():
    r = run_script("bench_seat_view", "--n", "1", "--ways", "overhead 640", "runtime", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(out) == {"overhead 640", "runtime"}
    for r in out.values():
        assert 0 < r["recall50"] <= 1 and set(r["per_seat"]) == {"self", "right", "across", "left"} \
            and r["tiles"] > 50
    # the runtime reads the frame again in slices: it finds at least what one pass does
    assert out["runtime"]["recall50"] >= out["overhead 640"]["recall50"]
    r = run_script("bench_seat_view", "--seed", "300", timeout=120)       # a training seed is refused
    assert r.returncode == 2 and "synth/seat300" in r.stderr
