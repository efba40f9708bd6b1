"""Temperature scaling: fitted on probabilities of known miscalibration, it finds the temperature and brings the
expected calibration error down."""
import numpy as np
import pytest

from mjtable.vision import calibrate as C


def _logits(n=4000, k=10, seed=0):
    """Logits whose softmax is calibrated, and a label drawn from each."""
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 2.0, (n, k))
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    truth = np.array([rng.choice(k, p=row) for row in p])
    return z, truth


def _softmax(z):
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


@pytest.mark.parametrize("t_true", [0.5, 2.0])
def test_the_fitted_temperature_undoes_a_known_one_and_lowers_the_ece(t_true):
    z, truth = _logits()
    seen = _softmax(z / t_true)                # over-sure (t_true < 1) or unsure (> 1) by a known temperature
    t = C.fit_temperature(seen, truth)
    assert t == pytest.approx(1 / t_true, rel=0.1)
    before = C.ece(*C.top_label(seen, truth))
    after = C.ece(*C.top_label(C.scale(seen, t), truth))
    assert before > 0.05 and after < 0.02 and after < before / 3


def test_a_calibrated_reading_keeps_temperature_one():
    z, truth = _logits(seed=1)
    assert C.fit_temperature(_softmax(z), truth) == pytest.approx(1.0, rel=0.1)


def test_scale_keeps_the_order_and_sums_to_one():
    p = np.array([[0.7, 0.2, 0.1], [0.4, 0.35, 0.25]])
    for t in (0.5, 1.0, 3.0):
        q = C.scale(p, t)
        assert np.allclose(q.sum(1), 1) and (q.argsort(1) == p.argsort(1)).all()
    assert C.scale(p, 0.5)[0, 0] > 0.7 > C.scale(p, 3.0)[0, 0]


def test_ece_of_a_known_reading():
    conf = np.array([0.9] * 10 + [0.6] * 10)
    right = np.array([True] * 9 + [False] + [True] * 3 + [False] * 7)
    assert C.ece(conf, right) == pytest.approx(0.5 * 0.0 + 0.5 * 0.3)
    assert C.ece(np.zeros(0), np.zeros(0, bool)) == 0.0


def test_the_runtime_temperatures_are_sane():
    assert set(C.TEMPERATURE) == {"phone", "overhead", "seat"}
    assert all(C.T_RANGE[0] <= t <= C.T_RANGE[1] for t in C.TEMPERATURE.values())
