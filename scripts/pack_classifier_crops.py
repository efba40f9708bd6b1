"""Pack a train_classifier crops cache (RUN/crops.npz) for a training machine reached only by a small upload (a
lent GPU), and unpack it there: each 64x64 crop in WebP at --quality, the backs (kind 42, easy and many) thinned
to at most --backs, the labels as they are.

    python -m scripts.pack_classifier_crops pack runs/classifier/seatlr1/crops.npz crops_pack.npz [--backs 14000]
    python -m scripts.pack_classifier_crops unpack crops_pack.npz RUN/crops.npz     # then train_classifier --out RUN
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from mjtable.scoring import tiles as T


def _encode(crops: np.ndarray, quality: int) -> tuple[np.ndarray, np.ndarray]:
    """(all the WebP bytes end to end, offsets: crop i is bytes[off[i]:off[i + 1]])."""
    parts = [cv2.imencode(".webp", c, [cv2.IMWRITE_WEBP_QUALITY, quality])[1].tobytes() for c in crops]
    return np.frombuffer(b"".join(parts), np.uint8), np.cumsum([0] + [len(p) for p in parts])


def _decode(data: np.ndarray, off: np.ndarray) -> np.ndarray:
    return np.stack([cv2.imdecode(data[off[i]:off[i + 1]], cv2.IMREAD_COLOR) for i in range(len(off) - 1)])


def pack(src: Path, dst: Path, backs: int, quality: int, seed: int = 0) -> int:
    """Write the packed copy; returns the training crops kept."""
    z = np.load(src)
    K = z["K"]
    back = np.flatnonzero(K == T.BACK)
    rng = np.random.default_rng(seed)
    keep = np.sort(np.concatenate([np.flatnonzero(K != T.BACK),
                                   rng.choice(back, min(backs, len(back)), replace=False)]))
    b, o = _encode(z["X"][keep], quality)
    bv, ov = _encode(z["Xv"], quality)
    np.savez(dst, B=b, O=o, K=K[keep], U=z["U"][keep], Bv=bv, Ov=ov, Kv=z["Kv"], Uv=z["Uv"])
    return len(keep)


def unpack(src: Path, dst: Path) -> None:
    z = np.load(src)
    np.savez(dst, X=_decode(z["B"], z["O"]), K=z["K"], U=z["U"], Xv=_decode(z["Bv"], z["Ov"]), Kv=z["Kv"],
             Uv=z["Uv"])


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("action", choices=("pack", "unpack"))
    ap.add_argument("src", type=Path)
    ap.add_argument("dst", type=Path)
    ap.add_argument("--backs", type=int, default=14000, help="backs kept at most (pack)")
    ap.add_argument("--quality", type=int, default=80, help="WebP quality (pack)")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    if not a.src.exists():
        print(f"error: not found: {a.src}", file=sys.stderr)
        return 2
    if a.action == "pack":
        n = pack(a.src, a.dst, a.backs, a.quality)
        print(f"packed {n} training crops -> {a.dst} ({a.dst.stat().st_size / 2 ** 20:.1f} MiB)")
    else:
        unpack(a.src, a.dst)
        print(f"unpacked -> {a.dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
