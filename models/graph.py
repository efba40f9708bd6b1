"""The ONNX models' graphs in the form the runtime wants (vision/detector.py reads either form), and their int8
quantization; scripts/runtime_graph.py, scripts/quantize_models.py and scripts/train_detector.py --export use
them. Needs the ``onnx`` package (the train extra).

* **Split head** (YOLO locators): the model outputs the box distributions and class logits of every anchor,
  'box_dist' (1, 4*16, N) and 'cls_logits' (1, nc, N), instead of ultralytics' decoded (1, 4+nc, N) 'output0';
  the runtime (mjtable.vision.detector.decode_raw) works out the boxes of the anchors over the confidence threshold
  only. The graph loses the DFL softmax over all anchors (on a transposed tensor: a sixth of an overhead 640 px
  pass), the box decoding and the class sigmoid. Boxes are the same within 1e-4 px.
* **Byte input** (int8 locators and classifiers whose input is quantized with scale 1/255 and zero point 0, so the
  quantized input is the pixel value itself): the model takes the BGR uint8 image(s) as they are, (N, H, W, 3)
  'image_bgr_u8' (the letterboxed frame, or the stacked 64x64 crops); the input QuantizeLinear is dropped, a
  Transpose to NCHW added (onnxruntime's own NHWC layout cancels it) and the first convolution's input channels
  put in BGR order. The same outputs bit for bit, without building the float input (about 1 ms each for an
  overhead frame's locator pass and its classifier batch).
* **No machine's paths**: file paths in the metadata (an export names its training data's file) are cut to their
  file names.
"""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

import numpy as np

OUTPUTS = ("box_dist", "cls_logits")
BYTE_INPUT = "image_bgr_u8"


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


def is_yolo_export(model) -> bool:
    """An ultralytics YOLO export (one 'output0' of 4+nc rows), as opposed to a split locator or a classifier."""
    return [o.name for o in model.graph.output] == ["output0"]


def split_head(model):
    """The model with its head split (a new ModelProto)."""
    import onnx
    import onnx.utils

    inp = model.graph.input[0].name
    dist, logits = head_tensors(model)
    with tempfile.TemporaryDirectory() as tmp:
        src, cut = Path(tmp) / "src.onnx", Path(tmp) / "cut.onnx"
        onnx.save(model, str(src))
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
    return out


def _input_quantizer(model):
    """The QuantizeLinear node reading the float input, if its scale is 1/255 and zero point 0 (else None)."""
    from onnx import numpy_helper
    g = model.graph
    q = [n for n in g.node if n.op_type == "QuantizeLinear" and n.input[0] == g.input[0].name]
    if len(q) != 1 or len(q[0].input) < 3:
        return None
    inits = {i.name: i for i in g.initializer}
    if q[0].input[1] not in inits or q[0].input[2] not in inits:
        return None
    scale, zp = numpy_helper.to_array(inits[q[0].input[1]]), numpy_helper.to_array(inits[q[0].input[2]])
    if scale.size != 1 or zp.size != 1 or zp.dtype != np.uint8 or int(zp) != 0:
        return None
    # the quantized value of every pixel p (p / 255 in float32, divided by the scale, rounded) must be p itself
    p = np.arange(256, dtype=np.float32)
    if not np.array_equal(np.rint((p / np.float32(255.0)) / scale.astype(np.float32)), p):
        return None
    return q[0]


def byte_input(model):
    """The int8 model taking BGR uint8 images (N, H, W, 3) as they are (changed in place and returned), or None
    when its input is not quantized to the pixel values themselves (a model converted already has no such input)."""
    from onnx import TensorProto, helper, numpy_helper
    g = model.graph
    q = _input_quantizer(model)
    if q is None:
        return None
    dims = list(g.input[0].type.tensor_type.shape.dim)
    n_, c_, h_, w_ = [d.dim_param or d.dim_value for d in dims]        # a batch may be symbolic ('n')
    qout = q.output[0]
    by_out = {o: n for n in g.node for o in n.output}
    dq = [n for n in g.node if n.op_type == "DequantizeLinear" and n.input[0] == qout]
    convs = [n for d in dq for n in g.node if n.op_type == "Conv" and n.input[0] == d.output[0]]
    readers = [n for n in g.node if qout in n.input]
    if c_ != 3 or len(dq) != 1 or len(convs) != 1 or len(readers) != 1:
        return None
    wdq = by_out.get(convs[0].input[1])
    inits = {i.name: i for i in g.initializer}
    if wdq is None or wdq.op_type != "DequantizeLinear" or wdq.input[0] not in inits:
        return None
    w = inits[wdq.input[0]]
    arr = numpy_helper.to_array(w)
    w.CopyFrom(numpy_helper.from_array(np.ascontiguousarray(arr[:, ::-1]), w.name))    # RGB -> BGR channels
    g.node.remove(q)
    g.node.insert(0, helper.make_node("Transpose", [BYTE_INPUT], [qout], perm=[0, 3, 1, 2], name="nhwc_to_nchw"))
    del g.input[:]
    g.input.append(helper.make_tensor_value_info(BYTE_INPUT, TensorProto.UINT8, [n_, h_, w_, c_]))
    model.metadata_props.add(key="byte_input", value="BGR uint8 images, NxHxWx3")
    return model


# a file path of two or more folders, absolute or from a home folder ('~/'), not inside a URL; group 1: its name
PATH = re.compile(r"(?<![\w:/.~])~?(?:/[^\s/'\"]+)+/([^\s/'\"]+)")


def strip_paths(model) -> bool:
    """File paths in the model's metadata (an export names its training data's file) cut to their file names, so
    that a committed model names no machine's folders; True if any was cut."""
    cut = False
    for p in model.metadata_props:
        new = PATH.sub(r"\1", p.value)
        cut |= new != p.value
        p.value = new
    return cut


def runtime_graph(src: Path, dst: Path) -> list[str]:
    """Write src in the runtime's form to dst; returns what was done (empty: it was in that form already)."""
    import onnx
    model = onnx.load(str(src))
    done = []
    if strip_paths(model):
        done.append("paths cut from the metadata")
    if is_yolo_export(model):
        model = split_head(model)
        done.append("head split")
    if byte_input(model) is not None:
        done.append("byte input")
    if done:
        onnx.checker.check_model(model)
        dst.parent.mkdir(parents=True, exist_ok=True)
        onnx.save(model, str(dst))
    elif dst != src:
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(src.read_bytes())
    return done


def onnx_errors():
    """The exception onnx.load raises on a file that is not an ONNX model (protobuf's DecodeError)."""
    from google.protobuf.message import DecodeError
    return DecodeError


def quantize(src: Path, dst: Path, batches, keep_float) -> None:
    """src (a float ONNX model) -> dst in int8: onnxruntime static quantization, QDQ, per-channel int8 weights and
    uint8 activations, calibrated on ``batches`` (arrays for the model's input); the nodes for which
    ``keep_float(node)`` is true stay in float. Prints the file written."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(pre))
        model = onnx.load(str(pre))
        name = model.graph.input[0].name
        exclude = [n.name for n in model.graph.node if keep_float(n)]

        class Reader(CalibrationDataReader):
            def __init__(self):
                self.it = iter(batches)

            def get_next(self):
                x = next(self.it, None)
                return None if x is None else {name: x}

        out = Path(tmp) / "q.onnx"
        quantize_static(str(pre), str(out), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, nodes_to_exclude=exclude)
        dst.write_bytes(out.read_bytes())
    print(f"{src} -> {dst} ({dst.stat().st_size / 1e6:.1f} MB, {len(exclude)} nodes kept in float)")
