"""Train the tile crop classifier (stage 2): kind (0..41, 42 = back) + which way the tile's top points in the
crop (up / left / down / right), plain torch on CPU (or on a lent GPU, --device cuda; the crops are cut and
shrunk on the CPU either way).

    python -m scripts.train_classifier --out runs/classifier/main --minutes 10 [--resume]
                               [--export models/tile_classifier.onnx]

Crops come from YOLO dirs (boxes jittered like a detector's, turned to portrait exactly as the runtime does,
mjtable.vision.crops.crop_tile). Synthetic dirs also have angles/*.txt, which give the direction of the tile's top;
the real photos only give the kind (the direction loss is masked for them). Random 180-degree turns move the
direction label by two, so up/down (and left/right) are balanced.

A --train / --val folder with a labels.csv (image,tile[,name]: plain crop folders of single-tile pictures, e.g.
data/camerash/train from prepare_real_chinese) gives crops another way: DIR:crops_per_image:repeats makes that
many crops of each picture, each pasted at a random size (36-110 px high) on a random plain background, a
quarter of them lying sideways, and cut out with a jittered box as the runtime cuts a located one (their
direction is not trained: the pictures' own turn is not known).
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

from mjtable.scoring import tiles as T
from mjtable.models.training import classifier_crops, conv_block, kind_weights, low_resolution, resume
from mjtable.vision.crops import CROP, crops_to_tensor

ROOT = Path(__file__).resolve().parent.parent


def build_model(n_kinds: int = T.N_CLASSES, width: int = 16):
    """A plain VGG-style CNN: 64x64 crop -> (kind logits, upright/upside-down logits). width = first layer
    channels (16: ~11M multiply-adds per crop, ~0.3 ms on 2 cores)."""
    import torch.nn as nn
    c1, c2, c3, c4 = width, width * 2, width * 4, width * 8
    block = conv_block

    class TileNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                *block(3, c1, 2), *block(c1, c1), nn.MaxPool2d(2),          # 16
                *block(c1, c2), *block(c2, c2), nn.MaxPool2d(2),            # 8
                *block(c2, c3), *block(c3, c3), nn.MaxPool2d(2),            # 4
                *block(c3, c4), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2))
            self.kind = nn.Linear(c4, n_kinds)
            self.direction = nn.Linear(c4, 4)

        def forward(self, x):
            f = self.features(x)
            return self.kind(f), self.direction(f)

    return TileNet()


def augment(x, ud, gen):
    """x: float tensor NCHW 0..1. Random 180-degree turn (flips the orientation label), colour, blur-ish noise.
    The random draws are made on the generator's device (x's)."""
    import torch
    n = x.shape[0]
    dev = gen.device
    turn = torch.rand(n, generator=gen, device=dev) < 0.5
    x = torch.where(turn[:, None, None, None], torch.flip(x, dims=(2, 3)), x)
    ud = torch.where(turn & (ud >= 0), (ud + 2) % 4, ud)
    gain = 0.6 + 0.8 * torch.rand(n, 1, 1, 1, generator=gen, device=dev)
    cast = 0.85 + 0.3 * torch.rand(n, 3, 1, 1, generator=gen, device=dev)
    bias = 0.15 * (torch.rand(n, 1, 1, 1, generator=gen, device=dev) - 0.5)
    x = x * gain * cast + bias
    x = x + 0.03 * torch.rand(n, 1, 1, 1, generator=gen, device=dev) * torch.randn(x.shape, generator=gen, device=dev)
    return x.clamp(0, 1), ud


def evaluate(model, X, K, U, batch=512, device="cpu"):
    import torch
    model.eval()
    ok_k = ok_u = n_u = 0
    with torch.no_grad():
        for i in range(0, len(X), batch):
            x = torch.from_numpy(crops_to_tensor(list(X[i:i + batch]))).to(device)
            k, u = model(x)
            ok_k += int((k.argmax(1).cpu().numpy() == K[i:i + batch]).sum())
            m = U[i:i + batch] >= 0
            ok_u += int((u.argmax(1).cpu().numpy()[m] == U[i:i + batch][m]).sum())
            n_u += int(m.sum())
    model.train()
    return ok_k / max(len(X), 1), ok_u / max(n_u, 1)


def load_onnx_weights(model, path: Path, X: np.ndarray) -> None:
    """Start from an exported classifier (when its checkpoint was lost): the export folded each BatchNorm into
    its convolution, so the convolutions get the folded weights and each BatchNorm is calibrated on the crops X
    to give back conv(x) + bias (running statistics and affine alike; see scripts/onnx_to_pt.py)."""
    import onnx
    import torch
    from onnx import numpy_helper
    m = onnx.load(str(path))
    init = {i.name: numpy_helper.to_array(i).copy() for i in m.graph.initializer}
    convs = [n for n in m.graph.node if n.op_type == "Conv"]
    pairs = [(mod, model.features[i + 1]) for i, mod in enumerate(model.features)
             if isinstance(mod, torch.nn.Conv2d)]
    if len(pairs) != len(convs) or any(init[c.input[1]].shape != tuple(mod.weight.shape)
                                       for c, (mod, _) in zip(convs, pairs)):
        raise SystemExit(f"{path} does not match this network (--width?)")
    for c, (conv, bn) in zip(convs, pairs):
        conv.weight.data.copy_(torch.from_numpy(init[c.input[1]]))
        bn.weight.data.fill_(1.0)
        bn.bias.data.copy_(torch.from_numpy(init[c.input[2]]))
        bn.running_mean.zero_()
        bn.running_var.fill_(1.0 - bn.eps)
    for name in ("kind", "direction"):
        getattr(model, name).weight.data.copy_(torch.from_numpy(init[f"{name}.weight"]))
        getattr(model, name).bias.data.copy_(torch.from_numpy(init[f"{name}.bias"]))
    stats = {}
    hooks = [bn.register_forward_hook(lambda mod, inp, out: stats.__setitem__(
        id(mod), (inp[0].mean((0, 2, 3)), inp[0].var((0, 2, 3), unbiased=False)))) for _, bn in pairs]
    model.eval()
    with torch.no_grad():
        x = torch.from_numpy(crops_to_tensor(list(X)))
        before = model(x)[0]
        for h in hooks:
            h.remove()
        for _, bn in pairs:
            mean, var = stats[id(bn)]
            bias = bn.bias.data.clone()
            bn.running_mean.copy_(mean)
            bn.running_var.copy_(var)
            bn.weight.data.copy_(torch.sqrt(var + bn.eps))
            bn.bias.data.copy_(mean + bias)
        after = model(x)[0]
    model.train()
    print(f"initialised from {path}: max logit change after calibration {float((after - before).abs().max()):.2g}")


def export_onnx(model, path: Path) -> None:
    import torch
    model.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, torch.zeros(1, 3, CROP, CROP), str(path), input_names=["crops"],
                      output_names=["kind", "direction"], dynamic_axes={"crops": {0: "n"}, "kind": {0: "n"},
                                                                        "direction": {0: "n"}},
                      opset_version=17, dynamo=False)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="run dir (checkpoint last.pt, crops cache)")
    ap.add_argument("--train", nargs="*", default=["data/synth/train:12:1", "data/real/train:40:3"],
                    help="DIR:crops_per_image:repeats[:file glob]")
    ap.add_argument("--val", nargs="*", default=["data/synth/test:12:1", "data/real/heldout:40:1"])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--max-epochs", type=int, default=100)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--jitter", type=float, default=0.06)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--init", type=Path, default=None,
                    help="start from an earlier checkpoint's matching weights (.pt), or an exported model (.onnx)")
    ap.add_argument("--export", type=Path, default=None)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu", help="torch device to train on (cpu, cuda, cuda:1, ...)")
    ap.add_argument("--side-repeat", type=int, default=1, help="crops of each tile lying across the image")
    ap.add_argument("--width", type=int, default=16, help="channels of the first layer (32 = the comparison run)")
    ap.add_argument("--kind-weight", default="",
                    help="sample crops of some kinds more often, e.g. '0-8:3,34-41:2' (kind ids; others 1)")
    ap.add_argument("--low-res", type=float, default=0.0,
                    help="the share of training crops shrunk to a small, compressed face and enlarged back")
    ap.add_argument("--low-res-px", type=int, nargs=2, default=[7, 24], metavar=("LO", "HI"),
                    help="the width the --low-res crops' tiles are shrunk to, px")
    ap.add_argument("--low-res-skip", default="",
                    help="kinds never shrunk, e.g. '34-41' (the flowers), in --kind-weight's notation")
    return ap


def _dirs(specs: list[str]) -> list[tuple[Path, int, int, str]]:
    """DIR:crops_per_image:repeats[:file glob] specs -> the folders that are there (relative to the checkout)."""
    out = []
    for s in specs:
        d, per, rep, *pattern = s.split(":")
        p = Path(d) if Path(d).is_absolute() else ROOT / d
        if (p / "images").exists():
            out.append((p, int(per), int(rep), pattern[0] if pattern else "*"))
    return out


def training_crops(a) -> tuple:
    """(X, K, U) of training and of validation: the run's cached crops, or crops cut now and cached."""
    cache = a.out / "crops.npz"
    if cache.exists():
        z = np.load(cache)
        return tuple(z[k] for k in ("X", "K", "U", "Xv", "Kv", "Uv"))
    t0 = time.time()
    X, K, U = classifier_crops(_dirs(a.train), a.jitter, a.seed, side_repeat=a.side_repeat)
    Xv, Kv, Uv = classifier_crops(_dirs(a.val), a.jitter / 2, a.seed + 1)
    np.savez(cache, X=X, K=K, U=U, Xv=Xv, Kv=Kv, Uv=Uv)
    print(f"crops: train {len(X)}, val {len(Xv)} ({time.time() - t0:.0f} s)")
    return X, K, U, Xv, Kv, Uv


def initial_model(a, X: np.ndarray):
    """The network, started from --init when given (an exported model's weights, or a checkpoint's matching
    tensors)."""
    import torch
    model = build_model(width=a.width)
    if a.init and a.init.suffix == ".onnx":
        load_onnx_weights(model, a.init, X[np.random.default_rng(a.seed).permutation(len(X))[:512]])
    elif a.init:
        c = torch.load(a.init, weights_only=False, map_location="cpu")
        own = model.state_dict()
        same = {k: v for k, v in c["model"].items() if k in own and own[k].shape == v.shape}
        model.load_state_dict(same, strict=False)
        print(f"initialised {len(same)}/{len(own)} tensors from {a.init}")
    return model


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    a.out.mkdir(parents=True, exist_ok=True)

    ckpt = a.out / "last.pt"
    if a.export and not a.minutes:      # export a checkpoint only
        c = torch.load(ckpt, weights_only=False, map_location="cpu")
        model = build_model(width=c.get("width", a.width))
        model.load_state_dict(c["model"])
        export_onnx(model, a.export)
        print(f"exported {ckpt} -> {a.export} ({a.export.stat().st_size / 1e6:.1f} MB)")
        return 0
    X, K, U, Xv, Kv, Uv = training_crops(a)
    model = initial_model(a, X).to(a.device)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    state = {"epoch": 0, "elapsed": 0.0}
    if a.resume and ckpt.exists():
        state = resume(ckpt, model, opt)
    budget = a.minutes * 60
    steps_per_epoch = math.ceil(len(X) / a.batch)
    gen = torch.Generator(device=a.device).manual_seed(a.seed + state["epoch"])
    t_start = time.time() - state["elapsed"]
    weight = kind_weights(a.kind_weight)
    skip = kind_weights(a.low_res_skip.replace(",", ":0,") + ":0" if a.low_res_skip else "")
    low_res = a.low_res * (np.ones(T.N_CLASSES) if skip is None else skip)      # the share shrunk, per kind
    while state["epoch"] < a.max_epochs and time.time() - t_start < budget:
        rng = np.random.default_rng(a.seed + state["epoch"])
        if weight is None:
            perm = rng.permutation(len(X))
        else:                               # an epoch of as many crops, drawn in proportion to their kind's weight
            p = weight[K]
            perm = rng.choice(len(X), size=len(X), replace=True, p=p / p.sum())
        t_ep = time.time()
        tot = 0.0
        for s in range(steps_per_epoch):
            # cosine learning rate over the time budget
            frac = min((time.time() - t_start) / budget, 1.0)
            for g in opt.param_groups:
                g["lr"] = a.lr * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * frac)))
            idx = perm[s * a.batch:(s + 1) * a.batch]
            xs = low_resolution(X[idx], low_res[K[idx]], rng, short=tuple(a.low_res_px)) if a.low_res else X[idx]
            x = torch.from_numpy(crops_to_tensor(list(xs))).to(a.device, non_blocking=True)
            k = torch.from_numpy(K[idx]).to(a.device)
            u = torch.from_numpy(U[idx]).to(a.device)
            x, u = augment(x, u, gen)
            pk, pu = model(x)
            loss = F.cross_entropy(pk, k, label_smoothing=0.05)
            m = u >= 0
            if m.any():
                loss = loss + 0.5 * F.cross_entropy(pu[m], u[m])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += float(loss.detach())
            if time.time() - t_start >= budget:
                break
        state["epoch"] += 1
        state["elapsed"] = time.time() - t_start
        weights = {k: v.cpu() for k, v in model.state_dict().items()}    # a checkpoint any machine can load
        torch.save({"model": weights, "opt": opt.state_dict(), "state": state, "width": a.width}, ckpt)
        acc_k, acc_u = evaluate(model, Xv, Kv, Uv, device=a.device)
        print(f"epoch {state['epoch']}: loss {tot / (s + 1):.3f}  val kind acc {acc_k:.4f}  "
              f"direction acc {acc_u:.4f}  ({time.time() - t_ep:.0f} s)", flush=True)
    if a.export:
        export_onnx(model.cpu(), a.export)
        print(f"exported {a.export} ({a.export.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
