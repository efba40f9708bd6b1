"""Phone-size photos: the benchmark's phone scenes blown up to a phone camera's 12 MP (4032x3024 JPEG), read
end to end beside the 640x480 originals in the same run, and the decoding at reduced scale (mjtable.vision.detector
.load_image) beside decoding the whole file.

    python -m scripts.bench_large_photo [--n 40] [--seed 20261122] [--size 4032x3024]

Blown-up scenes are softer than a real 12 MP photo (no new detail), so the accuracy column says that the
reduced decoding loses nothing the 640 px original had; the time columns are what a phone photo costs.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2

from mjtable.cli import to_text
from mjtable.datasets.ground_truth import from_json
from mjtable.pipeline import read_image
from mjtable.vision.compare import area_key
from mjtable.vision.detector import TileDetector
from mjtable.vision.images import load_image

ROOT = Path(__file__).resolve().parent.parent


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--data", type=Path, default=ROOT / "data")
    ap.add_argument("--size", default="4032x3024")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    w, h = (int(v) for v in a.size.lower().split("x"))
    gts = sorted((a.data / f"bench_phone_{a.seed}" / "gt").glob("*.json"))[:a.n]
    if not gts:
        print(f"no scenes under {a.data / f'bench_phone_{a.seed}'} (run scripts/bench_e2e.py first)", file=sys.stderr)
        return 2
    det = TileDetector()
    runs = {"640x480 original": [], f"{w}x{h}, reduced decoding": [], f"{w}x{h}, whole decoding": []}
    exact = dict.fromkeys(runs, 0)
    misses: dict[str, list[str]] = {k: [] for k in runs}
    with tempfile.TemporaryDirectory() as tmp:
        for g in gts:
            gt = from_json(g.read_text())
            small = g.parent.parent / "images" / gt.image
            big = Path(tmp) / gt.image
            cv2.imwrite(str(big), cv2.resize(cv2.imread(str(small)), (w, h), interpolation=cv2.INTER_CUBIC),
                        [cv2.IMWRITE_JPEG_QUALITY, 92])
            for name, path, whole in zip(runs, (small, big, big), (False, False, True)):
                t0 = time.perf_counter()
                img = cv2.imread(str(path)) if whole else load_image(path)
                try:
                    out = read_image(img, det, gt.situation, "mcr", None, "auto")
                    to_text(out)
                    ok = area_key(out.table.player("self"), False) == area_key(gt.table.player("self"), False)
                except Exception:           # a miss, as the CLI would report it
                    ok = False
                exact[name] += ok
                if not ok:
                    misses[name].append(gt.image)
                runs[name].append((time.perf_counter() - t0) * 1000)
    print(f"Phone scenes (seed {a.seed}, first {len(gts)}) read from file to printed score, in turns, one run:")
    base = statistics.median(runs["640x480 original"])
    for name, ms in runs.items():
        med = statistics.median(ms)
        print(f"  {name:34s} whole hand exact {100 * exact[name] / len(gts):5.1f} %   ms median {med:6.0f}"
              f"   ({med / base:.1f}x the original)"
              + (f"   not exact: {' '.join(misses[name])}" if misses[name] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
