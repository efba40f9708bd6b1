"""Real tile crops: the classifier trains on plain crop folders, and the shipped classifier reads real tiles."""
import csv
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from mjtable.models.training import classifier_crops, low_resolution
from mjtable.vision.detector import CLASSIFIER, DetectorConfig, TileDetector
from mjtable.vision.labels import tile_names, write_crop_labels

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "real_crops"


def _crop_folder(folder: Path, kinds: list[int]) -> None:
    """Single-tile pictures (a pale tile with a coloured mark that depends on its kind) and their labels.csv."""
    (folder / "images").mkdir(parents=True)
    rows = []
    for i, k in enumerate(kinds):
        img = np.full((90, 66, 3), 225, np.uint8)
        cv2.circle(img, (33, 25 + 4 * (k % 10)), 12, (40 * (k % 6), 120, 255 - 5 * k), -1)
        cv2.imwrite(str(folder / "images" / f"{i}.png"), img)
        rows.append((f"{i}.png", k, tile_names()[k]))
    write_crop_labels(folder, rows)


def test_plain_crop_folder_crops_are_runtime_crops_with_their_kind(tmp_path):
    _crop_folder(tmp_path / "c", [0, 9, 34, 41])
    X, K, U = classifier_crops([(tmp_path / "c", 3, 2, "*")], jitter=0.06, seed=0, workers=1)
    assert X.shape == (24, 64, 64, 3) and X.dtype == np.uint8
    assert sorted(K.tolist()) == sorted([0, 9, 34, 41] * 6) and (U == -1).all()     # direction not trained
    # the crop is the tile (pale) with a little background, not the background
    assert np.median(X.reshape(len(X), -1), axis=1).min() > 150


def test_low_resolution_crops_lose_detail_but_keep_the_tile(tmp_path):
    _crop_folder(tmp_path / "c", [0, 9, 34, 41])
    X, _, _ = classifier_crops([(tmp_path / "c", 4, 1, "*")], jitter=0.06, seed=0, workers=1)
    rng = np.random.default_rng(0)
    none, every = low_resolution(X, 0.0, rng), low_resolution(X, 1.0, rng)
    assert (none == X).all() and every.shape == X.shape and every.dtype == np.uint8
    assert not (every == X).all(axis=(1, 2, 3)).any()                    # p 1: every crop is changed

    def detail(c):                                    # fine detail: the energy of the Laplacian
        return float(np.abs(cv2.Laplacian(cv2.cvtColor(c, cv2.COLOR_BGR2GRAY), cv2.CV_64F)).mean())
    assert np.mean([detail(c) for c in every]) < 0.7 * np.mean([detail(c) for c in X])
    # ... but it is still the same tile: the mean colour barely moves
    assert np.abs(every.reshape(len(X), -1, 3).mean(1) - X.reshape(len(X), -1, 3).mean(1)).max() < 12
    some = low_resolution(X, 0.5, np.random.default_rng(1))
    changed = (some != X).any(axis=(1, 2, 3))
    assert 0 < changed.sum() < len(X)
    # a probability per crop (train_classifier --low-res-skip): crops given 0 are never shrunk
    p = np.tile([1.0, 0.0], len(X) // 2 + 1)[:len(X)]
    per = low_resolution(X, p, np.random.default_rng(2))
    assert ((per != X).any(axis=(1, 2, 3)) == (p > 0)).all()


def test_packed_crops_come_back_close_with_their_labels_and_fewer_backs(tmp_path):
    """scripts/pack_classifier_crops: a run's crop cache travels in WebP, the backs thinned, labels kept."""
    from scripts.pack_classifier_crops import pack, unpack
    _crop_folder(tmp_path / "c", [0, 9, 34, 41])
    X, K, U = classifier_crops([(tmp_path / "c", 4, 1, "*")], jitter=0.06, seed=0, workers=1)
    K, U = np.where(K == 41, 42, K), np.arange(len(X)) % 4          # the 41s stand in for backs
    np.savez(tmp_path / "crops.npz", X=X, K=K, U=U, Xv=X[:3], Kv=K[:3], Uv=U[:3])
    assert pack(tmp_path / "crops.npz", tmp_path / "p.npz", backs=1, quality=80) == len(X) - 3
    unpack(tmp_path / "p.npz", tmp_path / "back.npz")
    z = np.load(tmp_path / "back.npz")
    faces = K != 42
    assert (z["K"] != 42).sum() == faces.sum() and (z["K"] == 42).sum() == 1
    assert (z["U"][z["K"] != 42] == U[faces]).all() and (z["Kv"] == K[:3]).all()
    assert z["X"].shape == (len(X) - 3, 64, 64, 3) and z["X"].dtype == np.uint8
    assert np.abs(z["X"][z["K"] != 42].astype(int) - X[faces].astype(int)).mean() < 4
    assert (tmp_path / "p.npz").stat().st_size < X.nbytes / 4


@pytest.mark.train
def test_train_classifier_runs_on_plain_crop_folders_and_exports(tmp_path):
    pytest.importorskip("torch", reason="the train extra")
    import subprocess
    import onnxruntime as ort
    _crop_folder(tmp_path / "train", [0, 9, 34, 41, 31, 27] * 2)
    _crop_folder(tmp_path / "val", [0, 41])
    out = tmp_path / "cls.onnx"
    r = subprocess.run([sys.executable, "-m", "scripts.train_classifier", "--out", str(tmp_path / "run"),
                        "--minutes", "0.05", "--max-epochs", "1", "--threads", "1", "--batch", "16", "--low-res", "0.5",
                        "--train", f"{tmp_path / 'train'}:4:1", "--val", f"{tmp_path / 'val'}:2:1",
                        "--export", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "crops: train 48, val 4" in r.stdout and "epoch 1:" in r.stdout
    assert (tmp_path / "run" / "last.pt").exists()
    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    kind, direction = sess.run(None, {"crops": np.zeros((2, 3, 64, 64), np.float32)})
    assert kind.shape == (2, 43) and direction.shape == (2, 4)


def test_shipped_classifier_reads_real_riichi_crops():
    """18 tiles cut from real riichi photos (held out of the real training split; ATTRIBUTION.md), one per kind,
    each classified from its box as the runtime classifies a located box."""
    with open(FIXTURE / "labels.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 18
    det = TileDetector(DetectorConfig(classifier=CLASSIFIER))
    right = []
    for r in rows:
        img = cv2.imread(str(FIXTURE / r["image"]))
        assert img is not None and max(img.shape[:2]) <= 64
        box = np.array([[float(r[k]) for k in ("x1", "y1", "x2", "y2")]], np.float32)
        kinds, _ = det.classify(img, box)
        right.append(int(np.argmax(kinds[0])) == int(r["tile"]))
    wrong = [r["name"] for r, ok in zip(rows, right) if not ok]
    assert sum(right) >= 16, f"read wrong: {wrong}"


def test_shipped_model_reads_the_bundled_real_photo():
    """examples/real_hand.jpg: a real tile set (examples/ATTRIBUTION.md), fourteen tiles in a grid, the winning
    tile not set apart: 一万 pair and four 二三四万 chows, 88 points."""
    from collections import Counter
    import mjtable
    r = mjtable.read(ROOT / "examples" / "real_hand.jpg").to_dict()
    placed = [t for t in r["tiles"] if t["group"] not in ("unplaced", "duplicate")]
    assert Counter(t["kind"] for t in placed) == {"1m": 2, "2m": 4, "3m": 4, "4m": 4}
    assert r["result"]["total"] == 88 and r["doubtful"] == []
