"""Chinese Official Mahjong (MCR, 国标麻将) scoring: all 81 fans + flowers, every winning shape, rule profiles.

    from mjtable.scoring.mcr import score, FAN_TABLE, PROFILES
    res = score(hand, profile="default")      # ScoreResult; profiles: see PROFILES

See README.md in this folder for the design and the documented profile differences.
"""

from . import engine as _engine
from . import fast as _fast
from .engine import evaluate, is_winning_shape, waits
from .fast import score
from .profiles import PROFILES, Profile, UnknownProfile, get_profile
from .tally import FAN_TABLE, MIN_POINTS


def clear_caches() -> None:
    """Free every cache and table the scorers filled (each is bounded)."""
    _engine.clear_caches()
    _fast.clear_caches()


__all__ = [
    "score",
    "FAN_TABLE",
    "PROFILES",
    "Profile",
    "UnknownProfile",
    "get_profile",
    "is_winning_shape",
    "waits",
    "evaluate",
    "MIN_POINTS",
    "clear_caches",
]
