"""Running the detector's ONNX models: how each model file is opened, and how a classifier reads crops."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .crops import crops_to_tensor
from .yolo_decode import ModelError


def takes_bytes(sess) -> bool:
    """Does the session's model take BGR uint8 images NxHxWx3 as they are (an int8 model put in the runtime form
    by scripts/runtime_graph.py), rather than the float RGB NCHW tensor?"""
    return sess.get_inputs()[0].type == "tensor(uint8)"


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def open_session(path: Path, threads: int):
    import onnxruntime as ort
    from .images import not_a_file
    why = not_a_file(path)
    if why == "does not exist":
        raise ModelError(f"model file missing: {path} (set MJTABLE_MODELS to a folder of the models, or train them: "
                         f"models/README.md)")
    if why:                             # a FIFO would block the loader for ever
        raise ModelError(f"cannot load the model {path}: it {why}")
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    # worker threads busy-wait between a run's operators (waking a sleeping thread for each of a locator's
    # ~400 operators costs more than the work of many), and stop when the run ends: several sessions (router,
    # locator, classifier) run one after another on 2 cores and must not spin against each other. Median of
    # four processes each: overhead frame 41.0 -> 36.5 ms, phone 22.8 -> 20.0 ms (never spinning -> this)
    so.add_session_config_entry("session.intra_op.allow_spinning", "1")
    so.add_session_config_entry("session.force_spinning_stop", "1")
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def read_crops(sess, crops) -> tuple[np.ndarray, np.ndarray]:
    """A classifier session's kind (N,43) and direction probabilities of the crops (64x64 BGR uint8 each)."""
    x = np.stack(crops) if takes_bytes(sess) else crops_to_tensor(list(crops))   # uint8 Nx64x64x3 or float
    name = sess.get_inputs()[0].name
    kinds, dirs = [], []
    for i in range(0, len(x), 64):
        k, d = sess.run(None, {name: x[i:i + 64]})
        kinds.append(softmax(k))
        dirs.append(softmax(d))
    return np.concatenate(kinds), np.concatenate(dirs)


def input_px(sess) -> int:
    """A locator session's square input size in pixels."""
    inp = sess.get_inputs()[0]
    return int(inp.shape[1] if takes_bytes(sess) else inp.shape[2])
