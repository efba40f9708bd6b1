"""Blend two exported models of one network by their weights: every weight (1 - t) * A + t * B.

    python -m scripts.blend_models models/tile_classifier_seat.onnx runs/x/tile_classifier_seat.onnx --t 0.5 \\
        --out runs/blend/tile_classifier_seat.onnx

B should be A fine-tuned (its weights started from A's). The blend keeps much of what A knew that the fine-tune
forgot, and much of what the fine-tune learnt (weight-space ensembling, Wortsman et al. 2022, "WiSE-FT"); it
costs nothing at run time, unlike averaging two models' outputs. The models are the float exports, whose
BatchNorms are folded into their convolutions, so each layer is blended as the affine map it computes. Quantize
the result as any float model (scripts/quantize_models.py).

Exit status 2, with one line, when a file can't be read or the two are not the same network.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def blend(a: Path, b: Path, t: float):
    """The model A with every floating-point weight replaced by (1 - t) * A's + t * B's (an onnx ModelProto)."""
    import onnx
    from onnx import numpy_helper
    ma, mb = onnx.load(str(a)), onnx.load(str(b))
    if [(n.op_type, list(n.input)) for n in ma.graph.node] != [(n.op_type, list(n.input)) for n in mb.graph.node]:
        raise ValueError(f"{a} and {b} are not the same network")
    wb = {i.name: numpy_helper.to_array(i) for i in mb.graph.initializer}
    for init in ma.graph.initializer:
        x = numpy_helper.to_array(init)
        y = wb.get(init.name)
        if y is None or y.shape != x.shape or y.dtype != x.dtype:
            raise ValueError(f"{b} has no weight {init.name} like {a}'s")
        if np.issubdtype(x.dtype, np.floating):
            init.CopyFrom(numpy_helper.from_array(((1.0 - t) * x + t * y).astype(x.dtype), init.name))
        elif not np.array_equal(x, y):
            raise ValueError(f"{a} and {b} differ in the constant {init.name}")
    return ma


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a", type=Path, help="the model before fine-tuning (float ONNX)")
    ap.add_argument("b", type=Path, help="the same network fine-tuned from it (float ONNX)")
    ap.add_argument("--t", type=float, default=0.5, help="B's share of every weight, 0..1")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if not 0.0 <= args.t <= 1.0:
        print(f"blend_models: --t {args.t} is not between 0 and 1", file=sys.stderr)
        return 2
    try:
        model = blend(args.a, args.b, args.t)
    except Exception as e:                   # an unreadable file or another network: one line, no traceback
        print(f"blend_models: {e}".splitlines()[0], file=sys.stderr)
        return 2
    import onnx
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_name(args.out.name + ".part")
    onnx.save(model, str(tmp))
    tmp.replace(args.out)
    print(f"{args.out}: {1 - args.t:g} x {args.a} + {args.t:g} x {args.b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
