"""Recover a trainable ultralytics checkpoint from an exported YOLO ONNX model (when the .pt was lost).

    python -m scripts.onnx_to_pt models/tile_locator.onnx runs/detector/recovered.pt [--calib DIR]

The model may have its head split (scripts/runtime_graph.py): the DFL's weights are fixed, not learned.
The export fuses each BatchNorm into its convolution (conv weight and bias). Building the same network from
yolo11n.yaml, this copies the fused weights into the convolutions and sets every BatchNorm so that it reproduces
the fused layer: running mean/var and the affine (gamma, beta) are calibrated on real images, so that the layer
gives conv(x) + bias both in eval mode and, on batches like the calibration one, in train mode. The result can be
passed to scripts/train_detector.py --init. It prints the largest difference between the ONNX and the torch
outputs on the calibration images (it should be ~1e-4 of the output range).
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

import cv2
import numpy as np

from mjtable.models.training import offline_ultralytics
from mjtable.vision.detector import letterbox, to_blob, yolo_output

ROOT = Path(__file__).resolve().parent.parent


def onnx_output(sess, x: np.ndarray, imgsz: int) -> np.ndarray:
    """The model's ultralytics output (1, 4+nc, N), also from a split head (scripts/runtime_graph.py)."""
    out = sess.run(None, {sess.get_inputs()[0].name: x})
    return yolo_output(*out, imgsz) if len(out) == 2 else out[0]


def calib_batch(d: Path, imgsz: int, n: int) -> np.ndarray:
    files = sorted(d.glob("*.jpg"))[:: max(1, len(sorted(d.glob("*.jpg"))) // n)][:n]
    xs = []
    for f in files:
        lb, _, _ = letterbox(cv2.imread(str(f)), imgsz)
        xs.append(to_blob(lb))
    return np.concatenate(xs)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("onnx", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--model", default="yolo11n.yaml")
    ap.add_argument("--calib", type=Path, default=ROOT / "data" / "synth" / "test" / "images")
    ap.add_argument("--n", type=int, default=16)
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)

    import onnx
    import onnxruntime as ort
    import torch
    from onnx import numpy_helper
    offline_ultralytics(ROOT / ".yolo")
    from ultralytics import YOLO

    m = onnx.load(str(a.onnx))
    meta = {p.key: p.value for p in m.metadata_props}
    names = ast.literal_eval(meta["names"])
    imgsz = ast.literal_eval(meta["imgsz"])[0]
    weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in m.graph.initializer}

    det = YOLO(a.model).model
    if det.yaml.get("nc") != len(names):
        from ultralytics.nn.tasks import DetectionModel
        det = DetectionModel(a.model, nc=len(names), verbose=False)
    det.names = names
    mods = dict(det.named_modules())
    used = set()
    bns = []
    for name, mod in mods.items():
        if isinstance(mod, torch.nn.Conv2d) and f"{name}.weight" in weights:
            mod.weight.data.copy_(weights[f"{name}.weight"])
            used.add(f"{name}.weight")
            bias = weights.get(f"{name}.bias")
            parent = mods.get(name.rsplit(".", 1)[0]) if "." in name else None
            bn = getattr(parent, "bn", None) if parent is not None and name.endswith(".conv") else None
            if bn is not None:
                used.add(f"{name}.bias")
                bn.weight.data.fill_(1.0)
                bn.bias.data.copy_(bias)
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
                bns.append((bn, bias))
            elif bias is not None:
                mod.bias.data.copy_(bias)
                used.add(f"{name}.bias")
    missing = sorted(set(weights) - used)
    if missing:
        print("ONNX initialisers not placed:", missing[:10], "..." if len(missing) > 10 else "")

    x = calib_batch(a.calib, imgsz, a.n)
    # record each BatchNorm's input statistics with the network reproducing the fused model (eval mode)
    stats = {}
    hooks = [bn.register_forward_hook(lambda mod, inp, out: stats.__setitem__(
        id(mod), (inp[0].mean((0, 2, 3)), inp[0].var((0, 2, 3), unbiased=False)))) for bn, _ in bns]
    det.eval()
    with torch.no_grad():
        det(torch.from_numpy(x))
    for h in hooks:
        h.remove()
    for bn, bias in bns:
        mean, var = stats[id(bn)]
        # y = (z - mean) / sqrt(var + eps) * gamma + beta == z + bias
        bn.running_mean.copy_(mean)
        bn.running_var.copy_(var)
        bn.weight.data.copy_(torch.sqrt(var + bn.eps))
        bn.bias.data.copy_(mean + bias)
    with torch.no_grad():
        y = det(torch.from_numpy(x))
        y = (y[0] if isinstance(y, (list, tuple)) else y).numpy()
    sess = ort.InferenceSession(str(a.onnx), providers=["CPUExecutionProvider"])
    ref = np.concatenate([onnx_output(sess, x[i:i + 1], imgsz) for i in range(len(x))])
    print(f"max |torch - onnx| = {np.abs(y - ref).max():.4g} (output range {np.abs(ref).max():.4g}), "
          f"{len(bns)} BatchNorms calibrated on {len(x)} images")
    a.out.parent.mkdir(parents=True, exist_ok=True)
    det.args = {"imgsz": imgsz}
    torch.save({"model": det.float(), "train_args": {"imgsz": imgsz}, "epoch": -1, "optimizer": None,
                "date": meta.get("date")}, a.out)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
