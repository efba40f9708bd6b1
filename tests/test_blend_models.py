"""scripts/blend_models.py: two exports of one network blended weight by weight."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

from mjtable.vision.detector_config import CLASSIFIER, SEAT_CLASSIFIER
from mjtable.vision.detector_config import OVERHEAD_CLASSIFIER as OVERHEAD   # CLASSIFIER's network, other weights
from scripts import blend_models as B


def _run(path, x):
    s = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return s.run(None, {s.get_inputs()[0].name: x})[0]


def _weights(path):
    return {i.name: numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer}


def test_the_ends_are_the_two_models_and_the_middle_is_their_mean(tmp_path):
    x = np.random.default_rng(0).random((4, 3, 64, 64), np.float32)
    for t, like in ((0.0, CLASSIFIER), (1.0, OVERHEAD)):
        out = tmp_path / f"b{t}.onnx"
        assert B.main([str(CLASSIFIER), str(OVERHEAD), "--t", str(t), "--out", str(out)]) == 0
        np.testing.assert_allclose(_run(out, x), _run(like, x), rtol=1e-5, atol=1e-5)
    assert not np.allclose(_run(CLASSIFIER, x), _run(OVERHEAD, x), atol=1e-3)   # the two differ
    mid = tmp_path / "mid.onnx"
    assert B.main([str(CLASSIFIER), str(OVERHEAD), "--out", str(mid)]) == 0
    wa, wb, wm = _weights(CLASSIFIER), _weights(OVERHEAD), _weights(mid)
    assert set(wm) == set(wa)
    for k, v in wm.items():
        np.testing.assert_allclose(v, (wa[k] + wb[k]) / 2, rtol=1e-6, atol=1e-7)


def test_another_network_or_a_share_outside_0_1_is_one_line_and_exit_2(tmp_path, capsys):
    out = tmp_path / "x.onnx"
    for argv in ([str(CLASSIFIER), str(SEAT_CLASSIFIER), "--out", str(out)],
                 [str(CLASSIFIER), str(tmp_path / "none.onnx"), "--out", str(out)],
                 [str(CLASSIFIER), str(OVERHEAD), "--t", "1.5", "--out", str(out)]):
        assert B.main(argv) == 2
        assert capsys.readouterr().err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []
