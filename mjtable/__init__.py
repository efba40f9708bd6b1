"""mjtable: from a camera frame of a Mahjong table to the hand, its score and the referee's findings.

The package maps the repository's folders: ``mjtable.vision`` (detector, layout parser, video, CLI),
``mjtable.scoring`` (tiles, notation, MCR and Sichuan engines, referee audit) and ``mjtable.datasets``
(scene generator). The small API below is what most callers need.
"""
from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("mjtable")
except PackageNotFoundError:      # imported from a checkout that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
