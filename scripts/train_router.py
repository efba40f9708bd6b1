"""Train the view router: a tiny CNN that tells, from a 96x96 thumbnail of the whole frame, whether it is an
overhead view of a table (-> run the overhead locator first) or anything else (a phone photo of a hand, a
close-up: -> the general locator). Plain torch on CPU, a few minutes.

    python -m scripts.train_router --out runs/router/r1 --epochs 8 --export models/view_router.onnx

The runtime (mjtable.vision.detector.TileDetector.locate_for) never trusts it alone: a frame it calls overhead must
still look like a whole table on the overhead locator's boxes, or the general pass runs as before. A wrong
"overhead" costs time, never a reading. Labels come from the file names the scene generator writes
(overhead_* / phone_* / grid_*); real photos (data/real) are close-ups, labelled not overhead.
Training frames are padded or cropped to random aspect ratios and turned by quarter turns, so the shape of the
frame (square overhead scenes, 4:3 phone scenes) cannot be what it learns.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from mjtable.vision.detector import ROUTER_SIZE, router_input

ROOT = Path(__file__).resolve().parent.parent

PHONE_DIRS = ["synth/train:phone_*", "synth/train2:phone_*", "synth/train3:phone_*", "synth/train4:phone_*",
              "synth/grid:*", "real/train:*"]
OVERHEAD_DIRS = ["synth/train:overhead_*", "synth/train4:overhead_*", "synth/train5:overhead_*",
                 "synth/train6:overhead_*"]
VAL = [("synth/test:phone_*", 0), ("synth/test:overhead_*", 1), ("real/heldout:*", 0)]
KEEP = 320          # images are kept in memory at most this size (decoded at a quarter when large)


def _files(spec: str, data: Path) -> list[Path]:
    d, pat = spec.split(":") if ":" in spec else (spec, "*")
    return sorted((data / d / "images").glob(pat + ".jpg")) + sorted((data / d / "images").glob(pat + ".png"))


def _read(p: Path) -> np.ndarray | None:
    img = cv2.imread(str(p), cv2.IMREAD_REDUCED_COLOR_2)
    if img is None:
        return None
    s = KEEP / max(img.shape[:2])
    if s < 1:
        img = cv2.resize(img, (round(img.shape[1] * s), round(img.shape[0] * s)), interpolation=cv2.INTER_AREA)
    return img


def augment(img: np.ndarray, rng: random.Random) -> np.ndarray:
    """Random aspect (pad with a plain or edge border, or crop keeping most of the frame), quarter turns, flips,
    brightness / contrast."""
    h, w = img.shape[:2]
    aspect = rng.uniform(0.56, 1.78)
    if rng.random() < 0.5:                      # pad to the aspect
        if w / h < aspect:
            dw = int(h * aspect) - w
            left = rng.randint(0, dw)
            pads = (0, 0, left, dw - left)
        else:
            dh = int(w / aspect) - h
            t = rng.randint(0, dh)
            pads = (t, dh - t, 0, 0)
        if rng.random() < 0.5:
            img = cv2.copyMakeBorder(img, *pads, cv2.BORDER_REPLICATE)
        else:
            img = cv2.copyMakeBorder(img, *pads, cv2.BORDER_CONSTANT, value=[rng.randint(0, 255) for _ in range(3)])
    elif rng.random() < 0.6:                    # crop to the aspect, keeping at least 3/4 of each side
        if w / h < aspect:
            nh = max(int(h * 0.75), int(w / aspect))
            t = rng.randint(0, h - nh)
            img = img[t:t + nh]
        else:
            nw = max(int(w * 0.75), int(h * aspect))
            left = rng.randint(0, w - nw)
            img = img[:, left:left + nw]
    img = np.rot90(img, rng.randint(0, 3))
    if rng.random() < 0.5:
        img = img[:, ::-1]
    a, b = rng.uniform(0.7, 1.3), rng.uniform(-30, 30)
    return np.clip(img.astype(np.float32) * a + b, 0, 255).astype(np.uint8)


def build_model():
    import torch.nn as nn

    def block(i, o):
        return [nn.Conv2d(i, o, 3, 2, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]
    return nn.Sequential(*block(3, 16), *block(16, 32), *block(32, 64), *block(64, 64),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 2))


def load(specs: list[tuple[str, int]], data: Path) -> tuple[list[np.ndarray], list[int]]:
    imgs, labels = [], []
    for spec, lab in specs:
        for p in _files(spec, data):
            img = _read(p)
            if img is not None:
                imgs.append(img)
                labels.append(lab)
    return imgs, labels


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--data", type=Path, default=ROOT / "data")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--phone", nargs="*", default=PHONE_DIRS)
    ap.add_argument("--overhead", nargs="*", default=OVERHEAD_DIRS)
    ap.add_argument("--export", type=Path, help="write the trained model (last.pt in --out) to this ONNX path")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    import torch
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = random.Random(a.seed)
    a.out.mkdir(parents=True, exist_ok=True)
    model = build_model()
    ckpt = a.out / "last.pt"
    if a.export:
        model.load_state_dict(torch.load(ckpt, map_location="cpu"))
        model.eval()
        a.export.parent.mkdir(parents=True, exist_ok=True)
        torch.onnx.export(model, torch.zeros(1, 3, ROUTER_SIZE, ROUTER_SIZE), str(a.export), input_names=["frame"],
                          output_names=["view"], opset_version=17, dynamo=False)
        print(f"wrote {a.export}")
        return 0
    t0 = time.time()
    imgs, labels = load([(s, 0) for s in a.phone] + [(s, 1) for s in a.overhead], a.data)
    vimgs, vlabels = load(VAL, a.data)
    n1 = sum(labels)
    print(f"train {len(imgs)} ({n1} overhead), val {len(vimgs)} ({sum(vlabels)} overhead), "
          f"loaded in {time.time() - t0:.0f} s", flush=True)
    if not imgs or n1 in (0, len(imgs)):
        print("need frames of both kinds", file=sys.stderr)
        return 2
    weight = torch.tensor([len(imgs) / (2 * (len(imgs) - n1)), len(imgs) / (2 * n1)], dtype=torch.float32)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    steps = a.epochs * ((len(imgs) + a.batch - 1) // a.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, a.lr, total_steps=steps, pct_start=0.1)
    lossf = torch.nn.CrossEntropyLoss(weight=weight)
    vx = torch.from_numpy(np.concatenate([router_input(im) for im in vimgs]))
    vy = np.array(vlabels)
    for ep in range(a.epochs):
        model.train()
        order = list(range(len(imgs)))
        rng.shuffle(order)
        tl, t1 = 0.0, time.time()
        for i in range(0, len(order), a.batch):
            idx = order[i:i + a.batch]
            x = torch.from_numpy(np.concatenate([router_input(augment(imgs[j], rng)) for j in idx]))
            y = torch.tensor([labels[j] for j in idx])
            loss = lossf(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tl += float(loss.detach()) * len(idx)
        model.eval()
        with torch.no_grad():
            p = torch.softmax(model(vx), 1)[:, 1].numpy()
        pred = p >= 0.5
        acc = float((pred == vy).mean())
        fo = int((pred & (vy == 0)).sum())
        fp = int((~pred & (vy == 1)).sum())
        print(f"epoch {ep + 1}/{a.epochs} loss {tl / len(order):.4f} val acc {acc:.4f} "
              f"(said overhead of a non-overhead frame {fo}, missed overhead {fp}) {time.time() - t1:.0f} s",
              flush=True)
        torch.save(model.state_dict(), ckpt)
    return 0


if __name__ == "__main__":
    sys.exit(main())
