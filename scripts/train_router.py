"""Train the view router: a tiny CNN that tells, from a 96x96 thumbnail of the whole frame, whether it is a
photo of a hand or close-up (-> the general locator), a table seen from above (-> the overhead locator first) or,
with --seat frames given, a table photographed from a seat (-> the seat models, when it is a whole table). Plain
torch on CPU, a few minutes.

    python -m scripts.train_router --out runs/router/r3 --epochs 40 --threads 2
    python -m scripts.train_router --out runs/router/r3 --export models/view_router.onnx

The runtime (mjtable.vision.detector.TileDetector.locate_for) never trusts it alone: a frame it calls a table must
still look like a whole table on the overhead locator's boxes, or the general pass runs as before; a frame it
calls a seat view is read by the seat models only when it is a whole table. Labels come from the folders
(--phone, --overhead, --seat: DIR or DIR:GLOB under --data). Every tenth frame of each folder is held out for
the validation figures printed each epoch. Training frames are padded or cropped to random aspect ratios and
turned by quarter turns, so the shape of the frame (square overhead scenes, 4:3 phone scenes) cannot be what it
learns.
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

# the frames of the committed router (docs/experiments.md, View router): rendered and real-looking tables of the
# training tile sets only (generate --split train), real photos of the training splits
PHONE_DIRS = ["synth/mix900:phone_*", "cmd/train", "real/train", "camerash_photos/train"]
OVERHEAD_DIRS = ["synth/mix900:overhead_*", "synth/over105", "synth/train7", "synth/realover502", "synth/realover504"]
SEAT_DIRS = ["synth/seat300", "synth/seat301", "synth/realseat500", "synth/realseatp501", "synth/realseatp503"]
VIEWS = ("phone or close-up", "overhead", "seat view")
HOLD_OUT = 10       # every this many-th frame of a folder is held out for validation
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


def build_model(n_views: int = 3):
    import torch.nn as nn

    def block(i, o):
        return [nn.Conv2d(i, o, 3, 2, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]
    return nn.Sequential(*block(3, 16), *block(16, 32), *block(32, 64), *block(64, 64),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, n_views))


def load(specs: list[tuple[str, int]], data: Path) -> tuple[list, list]:
    """(training, validation) lists of (thumbnail, label): every HOLD_OUT-th frame of each folder held out."""
    train, val = [], []
    for spec, lab in specs:
        files = _files(spec, data)
        if not files:
            print(f"warning: no frames in {spec}", file=sys.stderr)
        for i, p in enumerate(files):
            img = _read(p)
            if img is not None:
                (val if i % HOLD_OUT == HOLD_OUT - 1 else train).append((img, lab))
    return train, val


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
    ap.add_argument("--seat", nargs="*", default=SEAT_DIRS,
                    help="tables photographed from a seat (none: a two-way router, phone or overhead)")
    ap.add_argument("--export", type=Path, help="write the trained model (last.pt in --out) to this ONNX path")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    import torch
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = random.Random(a.seed)
    a.out.mkdir(parents=True, exist_ok=True)
    n_views = 3 if a.seat else 2
    model = build_model(n_views)
    ckpt = a.out / "last.pt"
    if a.export:
        state = torch.load(ckpt, map_location="cpu")
        model = build_model(int(state[next(k for k in state if k.endswith(".weight") and state[k].ndim == 2)]
                                    .shape[0]))
        model.load_state_dict(state)
        model.eval()
        a.export.parent.mkdir(parents=True, exist_ok=True)
        torch.onnx.export(model, torch.zeros(1, 3, ROUTER_SIZE, ROUTER_SIZE), str(a.export), input_names=["frame"],
                          output_names=["view"], opset_version=17, dynamo=False)
        print(f"wrote {a.export}")
        return 0
    t0 = time.time()
    specs = [(s, 0) for s in a.phone] + [(s, 1) for s in a.overhead] + [(s, 2) for s in (a.seat or [])]
    train, val = load(specs, a.data)
    counts = np.bincount([lab for _, lab in train], minlength=n_views)
    print(f"train {len(train)} ({', '.join(f'{n} {v}' for n, v in zip(counts, VIEWS))}), val {len(val)}, "
          f"loaded in {time.time() - t0:.0f} s", flush=True)
    if (counts == 0).any():
        print("need frames of every view", file=sys.stderr)
        return 2
    weight = torch.tensor(len(train) / (n_views * counts), dtype=torch.float32)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    steps = a.epochs * ((len(train) + a.batch - 1) // a.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, a.lr, total_steps=steps, pct_start=0.1)
    lossf = torch.nn.CrossEntropyLoss(weight=weight)
    vx = torch.from_numpy(np.concatenate([router_input(im) for im, _ in val])) if val else None
    vy = np.array([lab for _, lab in val])
    for ep in range(a.epochs):
        model.train()
        order = list(range(len(train)))
        rng.shuffle(order)
        tl, t1 = 0.0, time.time()
        for i in range(0, len(order), a.batch):
            idx = order[i:i + a.batch]
            x = torch.from_numpy(np.concatenate([router_input(augment(train[j][0], rng)) for j in idx]))
            y = torch.tensor([train[j][1] for j in idx])
            loss = lossf(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tl += float(loss.detach()) * len(idx)
        line = f"epoch {ep + 1}/{a.epochs} loss {tl / len(order):.4f}"
        if vx is not None:
            model.eval()
            with torch.no_grad():
                pred = model(vx).argmax(1).numpy()
            wrong = [f"{VIEWS[t]} as {VIEWS[p]} {int(((vy == t) & (pred == p)).sum())}"
                     for t in range(n_views) for p in range(n_views) if t != p and ((vy == t) & (pred == p)).any()]
            line += f" val acc {float((pred == vy).mean()):.4f}" + (f" ({'; '.join(wrong)})" if wrong else "")
        print(f"{line} {time.time() - t1:.0f} s", flush=True)
        torch.save(model.state_dict(), ckpt)
    return 0


if __name__ == "__main__":
    sys.exit(main())
