"""Random hands and profiles shared by the MCR path tests (tests/test_mcr_fast.py, tests/test_mcr_ccore.py)."""
import dataclasses
import random

from mjtable.scoring.mcr import PROFILES
from mjtable.scoring.mcr.randhands import random_hands

# every profile, and one made on the fly
PROFILES_ALL = list(PROFILES.values()) + [
    dataclasses.replace(PROFILES["default"], name="default+fifth_copy_waits", fifth_copy_waits=True)]


def flagged_hands(n, seed):
    """Random winning-shape hands with every Situation flag, the competition variant's included."""
    rng = random.Random(seed)
    out = []
    for h in random_hands(n, seed, noisy=True):
        sit = dataclasses.replace(h.situation, winning_tile_apart=rng.random() < 0.8,
                                  heavenly_win=rng.random() < 0.03, earthly_win=rng.random() < 0.03,
                                  human_win=rng.random() < 0.03)
        out.append(dataclasses.replace(h, situation=sit))
    return out
