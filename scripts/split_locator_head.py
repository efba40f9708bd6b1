"""Split a YOLO locator's head: the ONNX model outputs the box distributions and class logits of every anchor,
and the runtime (vision.detector.decode_raw) works out boxes for the anchors that pass the confidence threshold
only, instead of the exported graph doing it for all of them.

    python scripts/split_locator_head.py models/tile_locator.onnx [more.onnx ...] [--out DIR]

Rewrites each model in place (or into --out). Float and int8 models alike: the weights are untouched, the
graph loses the DFL softmax, the box decoding and the class sigmoid. Exported ultralytics models are
(1, 4+nc, N) 'output0'; split ones have 'box_dist' (1, 4*16, N) and 'cls_logits' (1, nc, N). The runtime reads
either. Detections are the same up to float rounding (tests/test_split_head.py); an overhead 640 px pass is
about a sixth shorter (the head's softmax over 8400 anchors ran on a transposed tensor).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

OUTPUTS = ("box_dist", "cls_logits")


def head_tensors(model) -> tuple[str, str]:
    """The names of the tensors feeding the head's DFL (box distributions) and its class sigmoid, found from
    the graph output back: output0 = Concat(boxes, Sigmoid(logits)); boxes come from DFL's Reshape."""
    nodes = model.graph.node
    by_out = {o: n for n in nodes for o in n.output}
    final = by_out.get(model.graph.output[0].name) if len(model.graph.output) == 1 else None
    if final is None or final.op_type != "Concat" or len(final.input) != 2:
        raise ValueError("not an ultralytics YOLO detection export (one output0 = Concat(boxes, scores))")
    sig = by_out.get(final.input[1])
    dfl = [n for n in nodes if n.op_type == "Reshape" and n.name.endswith("/dfl/Reshape")]
    if sig is None or sig.op_type != "Sigmoid" or len(dfl) != 1:
        raise ValueError("cannot find the head's class sigmoid and DFL in the graph")
    return dfl[0].input[0], sig.input[0]


def is_split(path: Path) -> bool:
    import onnx
    return tuple(o.name for o in onnx.load(str(path), load_external_data=False).graph.output) == OUTPUTS


def split_head(src: Path, dst: Path) -> None:
    import onnx
    import onnx.utils

    model = onnx.load(str(src))
    inp = model.graph.input[0].name
    dist, logits = head_tensors(model)
    with tempfile.TemporaryDirectory() as tmp:
        cut = Path(tmp) / "cut.onnx"
        onnx.utils.extract_model(str(src), str(cut), [inp], [dist, logits])
        out = onnx.load(str(cut))
    rename = dict(zip((dist, logits), OUTPUTS))
    for n in out.graph.node:
        for i, o in enumerate(n.output):
            if o in rename:
                n.output[i] = rename[o]
        for i, o in enumerate(n.input):
            if o in rename:
                n.input[i] = rename[o]
    for o in out.graph.output:
        o.name = rename[o.name]
    del out.metadata_props[:]
    for p in model.metadata_props:
        out.metadata_props.add(key=p.key, value=p.value)
    out.metadata_props.add(key="split_head", value="box_dist (DFL logits), cls_logits")
    onnx.checker.check_model(out)
    dst.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(out, str(dst))


def onnx_errors():
    from google.protobuf.message import DecodeError
    return DecodeError


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", type=Path, nargs="+")
    ap.add_argument("--out", type=Path, default=None, help="write here instead of in place")
    a = ap.parse_args(argv)
    for src in a.models:
        dst = (a.out / src.name) if a.out else src
        try:
            if is_split(src):
                print(f"{src}: head already split, left as it is")
                if dst != src:
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    dst.write_bytes(src.read_bytes())
                continue
            split_head(src, dst)
        except (ValueError, OSError) as e:
            print(f"error: {src}: {e}", file=sys.stderr)
            return 2
        except onnx_errors():
            print(f"error: {src}: not an ONNX model", file=sys.stderr)
            return 2
        print(f"{src} -> {dst} ({dst.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
