"""Deprecated alias: the pipeline is ``mjtable.pipeline`` (docs/architecture.md). This name, documented in
docs/python-api.md before the move, still works for the 0.2 release, with a DeprecationWarning; it goes after.

It is the same module object (not a copy), so that ``mjtable.vision.pipeline.Reading is mjtable.pipeline.Reading``.
"""
import sys
import warnings

from mjtable import pipeline as _pipeline


def _caller_level() -> int:
    """The stacklevel of the first frame outside the import machinery: the ``import`` that named this alias."""
    f, level = sys._getframe(1), 1
    while f is not None and f.f_code.co_filename.startswith("<frozen importlib"):
        f, level = f.f_back, level + 1
    return level + 1


warnings.warn("mjtable.vision.pipeline moved to mjtable.pipeline; import it from there (the old name goes after "
              "the 0.2 release)", DeprecationWarning, stacklevel=_caller_level())
sys.modules[__name__] = _pipeline
