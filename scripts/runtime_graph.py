"""Give the detector's exported ONNX models the graph the runtime wants: a YOLO locator's head split, an int8
model's input the BGR uint8 image(s) as they are, and no machine's paths in the metadata (mjtable.models.graph
says what each is).

    python -m scripts.runtime_graph models/tile_locator_int8.onnx [more.onnx ...] [--out DIR]

Rewrites each model in place (or into --out); a model already in the runtime's form is left as it is.
scripts/train_detector.py --export splits the head of the float model it writes; scripts/quantize_models.py
puts the int8 models it writes in the runtime's form.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mjtable.models.graph import onnx_errors, runtime_graph


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", type=Path, nargs="+")
    ap.add_argument("--out", type=Path, default=None, help="write here instead of in place")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    for src in a.models:
        dst = (a.out / src.name) if a.out else src
        try:
            done = runtime_graph(src, dst)
        except (ValueError, OSError) as e:
            print(f"error: {src}: {e}", file=sys.stderr)
            return 2
        except onnx_errors():
            print(f"error: {src}: not an ONNX model", file=sys.stderr)
            return 2
        print(f"{src} -> {dst}: {', '.join(done) or 'already in the runtime form, unchanged'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
