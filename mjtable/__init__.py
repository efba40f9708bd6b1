"""mjtable: from a camera frame of a Mahjong table to the hand, its score and the referee's findings.

    import mjtable
    r = mjtable.read("examples/phone_win.jpg", seat_wind="S")     # a path, the bytes of a file, or a BGR array
    print(r.hand, r.result.total, [f.kind for f in r.findings])
    r.to_dict()                                                  # the JSON that `mjtable --json` prints
    s = mjtable.score("123m456p789s1z [555z^] +1z")

The app is this folder: ``mjtable.pipeline`` (the one pipeline), ``mjtable.cli``, ``mjtable.web`` and
``mjtable.archive``; the package also maps the repository's folders: ``mjtable.vision`` (detector, layout parser,
video, trust), ``mjtable.scoring`` (tiles, notation, MCR and Sichuan engines, referee audit) and
``mjtable.datasets`` (scene generator); docs/architecture.md. ``score`` imports no numpy, OpenCV or vision code.
Errors derive from ``mjtable.MjtableError`` and carry the CLI's ``exit_code``.
"""
from __future__ import annotations

from .errors import MjtableError


def __getattr__(name: str):
    """``__version__`` is looked up on first use (importlib.metadata costs a process start 10-20 ms)."""
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version
        try:
            v = version("mjtable")
        except PackageNotFoundError:      # imported from a checkout that was never installed
            v = "0+unknown"
        globals()["__version__"] = v
        return v
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["__version__", "MjtableError", "read", "score"]

_DETECTOR = None


def read(image, rules: str = "mcr", profile: str | None = None, kind: str = "auto", detector=None,
         **situation):
    """Read a frame: the tiles, how they lie, the hand, its score and the audit's findings.

    ``image``: a file path, the bytes of an image file, or a BGR uint8 array. ``rules``: "mcr" or "sichuan";
    ``profile``: the rule profile (None: the default); ``kind``: "auto", "phone" or "overhead". Situation
    keywords, one name each (docs/python-api.md): seat_wind, prevalent_wind ("E" "S" "W" "N"), self_drawn,
    last_tile, kong_replacement, robbing_kong, last_copy, winning_tile_apart, heavenly_win, earthly_win,
    human_win (True/False), void_suit ("m" "p" "s"), after_kong_discard. Returns a mjtable.pipeline.Reading; raises
    MjtableError subclasses (InputError, UnreadableError, ModelError, UsageError) for what cannot be read.
    """
    global _DETECTOR
    from . import pipeline
    sit = pipeline.situation(**situation)
    img, stretched = pipeline.load_frame(image)
    if detector is None:
        if _DETECTOR is None:
            _DETECTOR = pipeline.load_detector()
        detector = _DETECTOR
    elif not callable(getattr(detector, "detect", None)):
        from .errors import UsageError
        raise UsageError(f"detector: want a detector (mjtable.pipeline.load_detector()), got "
                         f"{type(detector).__name__}")
    return pipeline.read_image(img, detector, sit, rules, profile, kind, stretched=stretched)


def score(notation: str, rules: str = "mcr", profile: str | None = None, **situation):
    """Score a hand written in notation (docs/notation.md); keywords as for ``read``. BadHandError (a
    MjtableError) for bad notation or an impossible hand; a hand that is not a win has result.is_win False."""
    from . import pipeline
    from .errors import BadHandError
    if not isinstance(notation, str):
        raise BadHandError(f"bad notation: want a string such as \"123m456p789s1z [555z^] +1z\", got "
                           f"{type(notation).__name__}")
    return pipeline.read_notation(notation, pipeline.situation(**situation), rules, profile)
