"""Train the box refiner: a small CNN that reads a crop around a located box (mjtable.vision.crops.refine_crops)
and moves each of its four edges to the tile's silhouette, plain torch on CPU.

    python -m scripts.train_refiner --out runs/refiner/w8s24 --minutes 22 [--size 24] [--width 8] [--resume]
                            [--export models/tile_refiner.onnx]
    python -m scripts.train_refiner --out runs/refiner/w8s24 --minutes 0 --export models/tile_refiner.onnx
    python -m scripts.quantize_models --only refiner      # models/tile_refiner_int8.onnx, the runtime default

Training boxes are the labelled boxes of synthetic YOLO dirs with each edge moved at random (normal, JITTER of
the box's size; a quarter of them JITTER_WIDE: mjtable.models.training), as a locator's boxes are off; the
target is the move back.
Random horizontal and vertical flips of the crop swap (and negate) the matching targets. The crop is resampled
with no rounding, so the refiner can place an edge to a fraction of a pixel. The real train split is in the
default data (its hand-drawn boxes sit differently on a tile than the generator's outlines; a refiner trained
on synthetic boxes alone took the real held-out mAP50-95 from 0.865 to 0.56). Validation: mean absolute edge
error in pixels before and after refinement on a held-out dir (the synthetic validation split, seed 9101).
"""
from __future__ import annotations

import argparse
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from mjtable.models.training import conv_block, jitter_boxes, refiner_augment, refiner_targets, resume
from mjtable.vision.crops import REFINE_SIZE, move_edges, refine_crops
from mjtable.vision.labels import read_yolo

ROOT = Path(__file__).resolve().parent.parent

DEFAULT_TRAIN = ["data/synth/train:*:48", "data/synth/train3:*:24", "data/synth/train5:*:48",
                 "data/synth/train6:*:48", "data/synth/train7:*:48", "data/real/train:*:64:8"]


def _samples(args):
    """One image: (crops uint8 (n,S,S,3), targets (n,4), jittered boxes, true boxes)."""
    path, per_image, repeats, seed, size = args
    img = cv2.imread(str(path))
    lab = path.parent.parent / "labels" / (path.stem + ".txt")
    if img is None or not lab.exists():
        return None
    truth, _ = read_yolo(lab, img.shape[1], img.shape[0])
    rng = np.random.default_rng(seed)
    truth = truth[rng.permutation(len(truth))[:per_image]]
    truth = np.repeat(truth, repeats, 0)
    boxes = jitter_boxes(truth, rng)
    return refine_crops(img, boxes, size), refiner_targets(truth, boxes), boxes, truth


def collect(specs: list[str], repeats: int, seed: int, workers: int = 2, size: int = REFINE_SIZE):
    """specs: 'DIR[:GLOB[:PER_IMAGE[:REPEATS]]]' (default *, 48, repeats) -> crops, targets, boxes, truth."""
    jobs = []
    for s in specs:
        d, pattern, per, rep = (s.split(":") + ["*", "48", str(repeats)][len(s.split(":")) - 1:])[:4]
        for k, p in enumerate(sorted(Path(d).glob(f"images/{pattern}.jpg"))):
            jobs.append((p, int(per), int(rep), seed * 1000003 + k * 7919 + sum(map(ord, d)), size))
    if not jobs:
        raise SystemExit(f"no images in {specs}")
    parts = []
    with Pool(workers) as pool:
        for r in pool.imap(_samples, jobs, chunksize=16):
            if r is not None and len(r[0]):
                parts.append(r)
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(4))


def build_model(width: int = 8, size: int = REFINE_SIZE):
    """crop uint8 NHWC (BGR, as refine_crops gives it) -> 4 edge moves (x1, y1, x2, y2) in REFINE_SCALE units
    of the box's size. Strided convolutions keep where things are; no global pooling."""
    import torch.nn as nn
    c1, c2, c3 = width, width * 2, width * 4
    block = conv_block

    class RefineNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                *block(3, c1), *block(c1, c2, 2),                     # 16
                *block(c2, c2), *block(c2, c3, 2),                    # 8
                *block(c3, c3), *block(c3, c3, 2),                    # 4
                nn.Flatten())
            self.head = nn.Sequential(nn.Linear(c3 * ((size + 7) // 8) ** 2, 128), nn.ReLU(inplace=True),
                                      nn.Linear(128, 4))

        def forward(self, x):
            x = x.permute(0, 3, 1, 2).float() * (1.0 / 255.0)
            return self.head(self.features(x))

    return RefineNet()


def edge_error_px(model, X, B, G, batch: int = 1024) -> tuple[float, float]:
    """Mean absolute edge error (px) of the boxes B against the truth G, before and after refinement."""
    import torch
    model.eval()
    with torch.no_grad():
        d = np.concatenate([model(torch.from_numpy(X[i:i + batch])).numpy() for i in range(0, len(X), batch)])
    model.train()
    return float(np.abs(B - G).mean()), float(np.abs(move_edges(B, d) - G).mean())


def export_onnx(model, path: Path, size: int = REFINE_SIZE) -> None:
    import torch
    model.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, torch.zeros(1, size, size, 3, dtype=torch.uint8), str(path),
                      input_names=["crops_bgr_u8"], output_names=["edge_moves"],
                      dynamic_axes={"crops_bgr_u8": {0: "n"}, "edge_moves": {0: "n"}}, opset_version=17,
                      dynamo=False)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--train", nargs="*", default=DEFAULT_TRAIN, help="DIR[:GLOB[:BOXES_PER_IMAGE[:REPEATS]]]")
    ap.add_argument("--val", default="data/synth/val:*:48")
    ap.add_argument("--repeats", type=int, default=2, help="jittered copies of each box")
    ap.add_argument("--minutes", type=float, default=20.0)
    ap.add_argument("--width", type=int, default=8)
    ap.add_argument("--size", type=int, default=REFINE_SIZE, help="crop size (the runtime reads it off the model)")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--init", type=Path, help="start from this checkpoint's weights (a new schedule)")
    ap.add_argument("--export", type=Path)
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    try:
        import torch
    except ImportError:
        print("error: training needs torch: pip install -e '.[train]'", file=sys.stderr)
        return 2
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    ckpt = a.out / "last.pt"
    if a.export and not a.minutes:
        if not ckpt.exists():
            print(f"error: no checkpoint at {ckpt}", file=sys.stderr)
            return 2
        c = torch.load(ckpt, weights_only=False)
        model = build_model(c["width"], c.get("size", REFINE_SIZE))
        model.load_state_dict(c["model"])
        export_onnx(model, a.export, c.get("size", REFINE_SIZE))
        print(f"exported {ckpt} -> {a.export} ({a.export.stat().st_size / 1e6:.2f} MB)")
        return 0
    t0 = time.time()
    X, Y, _, _ = collect(a.train, a.repeats, a.seed, size=a.size)
    Xv, _, Bv, Gv = collect([a.val], 1, a.seed + 1, size=a.size)
    print(f"{len(X)} training crops, {len(Xv)} validation crops ({time.time() - t0:.0f} s)")
    model = build_model(a.width, a.size)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    state = {"epoch": 0, "elapsed": 0.0, "step": 0}
    if a.init:
        model.load_state_dict(torch.load(a.init, weights_only=False)["model"])
        print(f"initialised from {a.init}")
    if a.resume and ckpt.exists():
        state = resume(ckpt, model, opt)
    budget = a.minutes * 60
    steps_per_epoch = max(1, len(X) // a.batch)
    gen = torch.Generator().manual_seed(a.seed + state["epoch"])
    Xt, Yt = torch.from_numpy(X), torch.from_numpy(Y)
    a.out.mkdir(parents=True, exist_ok=True)
    while state["elapsed"] < budget:
        t_ep = time.time()
        perm = torch.randperm(len(X), generator=gen)
        loss_sum, n_steps = 0.0, 0
        for s in range(steps_per_epoch):
            frac = min(state["elapsed"] + time.time() - t_ep, budget) / budget
            for g in opt.param_groups:          # cosine decay over the whole budget
                g["lr"] = a.lr * (0.02 + 0.98 * 0.5 * (1 + np.cos(np.pi * frac)))
            idx = perm[s * a.batch:(s + 1) * a.batch]
            x, t = refiner_augment(Xt[idx], Yt[idx], gen)
            loss = torch.nn.functional.smooth_l1_loss(model(x), t, beta=0.1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss_sum += float(loss.detach())
            n_steps += 1
            state["step"] += 1
            if state["elapsed"] + time.time() - t_ep >= budget:
                break
        state["epoch"] += 1
        state["elapsed"] += time.time() - t_ep
        before, after = edge_error_px(model, Xv, Bv, Gv)
        print(f"epoch {state['epoch']}: loss {loss_sum / max(n_steps, 1):.4f}, validation edge error "
              f"{before:.3f} -> {after:.3f} px ({state['elapsed'] / 60:.1f} min)", flush=True)
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "state": state, "width": a.width,
                    "size": a.size}, ckpt)
    if a.export:
        export_onnx(model, a.export, a.size)
        print(f"exported -> {a.export} ({a.export.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
