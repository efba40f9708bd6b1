"""How far the classifier's kind probabilities can be taken at their word: temperature scaling.

The crop classifier is sure of itself: on real photos of tile sets it never saw, a tile read with p 0.9 is right
less often than 9 times in 10. A temperature T softens (T > 1) or sharpens (T < 1) each tile's kind probabilities
p as the softmax of log(p) / T (the classifier's logits divided by T, up to a constant; its more looks average
probabilities, so the runtime scales their average). T is fitted on held-out real photos by the least negative
log-likelihood of the true kinds (fit_temperature; scripts/bench_phone.py fits on one group of held-out sets and
reports on another) and kept per view in TEMPERATURE (1.0: as the classifier says).

The expected calibration error (ece) of a reading is the gap between how sure it says it is and how often it is
right, averaged over bins of confidence, weighted by how many tiles fall in each.
"""
from __future__ import annotations

import numpy as np

# per view the detector reads a frame as (TileDetector.locate_for). phone: fitted by scripts/bench_phone.py on every
# held-out real set (the real Chinese photos, the Camerash set photos and crops); below 1, the averaged looks leave
# the classifier less sure than it is right. Its figures are measured at temperatures fitted on the other sets
# only. The runtime's probabilities and its doubt limit (types.DOUBT) stay as the classifier gives them: at DOUBT
# the calibrated ones leave more misreads unnamed (bench_phone). Overhead and seat views are not fitted.
TEMPERATURE = {"phone": 0.594, "overhead": 1.0, "seat": 1.0}
T_RANGE = (0.25, 8.0)        # the temperatures fit_temperature searches


def scale(probs: np.ndarray, t: float) -> np.ndarray:
    """Probabilities (N, K) at temperature t: softmax(log p / t) per row (t = 1 leaves them as they are)."""
    p = np.asarray(probs, np.float64)
    if t == 1.0 or p.size == 0:
        return p
    z = np.log(np.clip(p, 1e-12, 1.0)) / t
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def calibrated(probs: np.ndarray, view: str = "phone") -> np.ndarray:
    """Kind probabilities of a frame read as ``view`` scaled by its fitted temperature (TEMPERATURE)."""
    return scale(probs, TEMPERATURE.get(view, 1.0)).astype(np.float32)


def nll(probs: np.ndarray, truth: np.ndarray, t: float = 1.0) -> float:
    """Mean negative log-likelihood of the true kinds at temperature t."""
    p = scale(probs, t)
    return float(-np.log(np.clip(p[np.arange(len(truth)), truth], 1e-12, 1.0)).mean())


def fit_temperature(probs: np.ndarray, truth: np.ndarray) -> float:
    """The temperature of least negative log-likelihood of the true kinds (golden-section search on log t within
    T_RANGE; the NLL is convex in 1 / t). 1.0 for no tiles."""
    probs, truth = np.asarray(probs, np.float64), np.asarray(truth, np.int64)
    if len(truth) == 0:
        return 1.0
    lo, hi = np.log(T_RANGE[0]), np.log(T_RANGE[1])
    g = (np.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = nll(probs, truth, np.exp(a)), nll(probs, truth, np.exp(b))
    for _ in range(60):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = nll(probs, truth, np.exp(a))
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = nll(probs, truth, np.exp(b))
    return float(np.exp((lo + hi) / 2))


def ece(confidence: np.ndarray, right: np.ndarray, bins: int = 15) -> float:
    """Expected calibration error: sum over equal-width confidence bins of (share of tiles in the bin) x |mean
    confidence - share right|. ``confidence``: the probability of the kind each tile was read as; ``right``:
    whether that kind is the true one."""
    c, r = np.asarray(confidence, np.float64), np.asarray(right, np.float64)
    if len(c) == 0:
        return 0.0
    idx = np.minimum((c * bins).astype(int), bins - 1)
    total = 0.0
    for b in np.unique(idx):
        m = idx == b
        total += m.sum() * abs(c[m].mean() - r[m].mean())
    return float(total / len(c))


def top_label(probs: np.ndarray, truth: np.ndarray, read: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(confidence, right) of each tile: the probability of the kind read (``read``, default the likeliest) and
    whether it is the true kind; for ece."""
    probs = np.asarray(probs)
    read = probs.argmax(axis=1) if read is None else np.asarray(read)
    return probs[np.arange(len(read)), read], read == np.asarray(truth)
