"""The compiled core of the MCR scorer (``scoring/mcr/_ccore.c``, glue ``ccore.py``): it is built here, it gives
exactly the Python path's (``fast._fast``) ScoreResult on random hands under every profile, odd input and
impossible hands still reach the Python / reference paths, and without the extension everything still works."""
import dataclasses
import os
import subprocess
import sys

import pytest

from mjtable.scoring.hand import KONG, Hand, Meld, Situation
from mjtable.scoring.mcr import PROFILES, ccore, engine, fast, score
from mjtable.scoring.notation import format_hand
from tests.mcr_hands import PROFILES_ALL, flagged_hands

SEED = 9411        # hands no other test draws
DISABLED = os.environ.get("MJTABLE_NO_CCORE", "") not in ("", "0")




def test_extension_is_built_and_used():
    """The extension must be built in this environment: a silent fall back to Python would pass every other test."""
    from mjtable.scoring.mcr import _ccore   # noqa: F401  (ImportError: run `pip install -e .`)
    if DISABLED:
        pytest.skip("MJTABLE_NO_CCORE is set")
    assert ccore.available()
    for prof in PROFILES_ALL:
        assert ccore._slot(prof) >= 0, prof.name


@pytest.mark.skipif(DISABLED, reason="MJTABLE_NO_CCORE is set")
@pytest.mark.parametrize("prof", PROFILES_ALL, ids=[p.name for p in PROFILES_ALL])
def test_c_path_equals_python_path(prof):
    forms = dict.fromkeys(("(七对)", "(十三幺)", "(全不靠)", "(组合龙)", "[", "wins", "under"), 0)
    kongs = 0
    for h in flagged_hands(4000, SEED):
        want = fast._fast(h, prof)
        got = ccore.score(h, prof)
        assert got is not None, format_hand(h)          # plain valid input is always taken
        assert dataclasses.asdict(got) == dataclasses.asdict(want), (format_hand(h), h.situation)
        assert got == want
        for k in forms:
            forms[k] += k in (want.decomposition or "")
        forms["wins"] += want.is_win
        forms["under"] += not want.is_win
        kongs += any(m.kind == KONG for m in h.melds)
    assert min(forms.values()) >= 20 and kongs >= 100, forms      # every shape, melds, kongs, both outcomes


@pytest.mark.skipif(DISABLED, reason="MJTABLE_NO_CCORE is set")
def test_score_uses_the_core_and_agrees_on_a_second_seed():
    prof = PROFILES["default"]
    for h in flagged_hands(3000, SEED + 1):
        assert fast.score(h) == fast._fast(h, prof), format_hand(h)


def _odd(hands):
    """Impossible hands, hands that are no winning shape, and input that is not plain."""
    out = []
    for h in hands:
        t = list(h.concealed)
        out.append(dataclasses.replace(h, concealed=tuple(t[:-1] + [(t[-1] + 1) % 34]) if t else (0,)))
        out.append(dataclasses.replace(h, concealed=tuple(t) + (h.winning_tile,)))
        out.append(dataclasses.replace(h, concealed=list(t)))
        out.append(dataclasses.replace(h, winning_tile=34))
        out.append(dataclasses.replace(h, flowers=(34, 34)))
        out.append(dataclasses.replace(h, situation=dataclasses.replace(h.situation, self_drawn=1)))
        out.append(dataclasses.replace(h, situation=dataclasses.replace(h.situation, seat_wind=26)))
        if h.melds:
            m = h.melds[0]
            out.append(dataclasses.replace(h, melds=(dataclasses.replace(m, source=None, concealed=False),)
                                           + h.melds[1:]))
            out.append(dataclasses.replace(h, melds=(dataclasses.replace(m, kind="pong"),) + h.melds[1:]))
            out.append(dataclasses.replace(h, melds=(dataclasses.replace(m, claimed=33),) + h.melds[1:]))
    return out


def test_odd_and_impossible_hands_are_judged_as_before():
    for h in _odd(flagged_hands(300, SEED + 2)):
        for prof in (PROFILES["default"], PROFILES["competition"]):
            want = fast._fast(h, prof)
            if want is None:
                want = engine.score(h, prof)
            assert score(h, prof) == want, format_hand(h)


def test_no_hand_state_leaks_between_calls():
    """The same hand scored after others gives the same result (no state kept in the core between hands)."""
    hands = flagged_hands(200, SEED + 3)
    first = [score(h, "competition") for h in hands]
    assert [score(h, "competition") for h in reversed(hands)] == first[::-1]


def test_falls_back_to_python_when_switched_off(monkeypatch):
    hands = flagged_hands(300, SEED + 4)
    want = [fast._fast(h, PROFILES["default"]) for h in hands]
    monkeypatch.setattr(ccore, "ON", False)
    assert [fast.score(h) for h in hands] == want


_NO_EXTENSION = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "mjtable.scoring.mcr._ccore":
            raise ImportError("blocked")
sys.meta_path.insert(0, Block())
from mjtable.scoring.hand import Hand, Meld, Situation
from mjtable.scoring.mcr import ccore, score
print(ccore.available(), ccore._ccore is None)
print(score(Hand((0, 1, 2, 9, 10, 11, 18, 19, 20, 0, 1, 2, 31), (), 31)).total)
"""


@pytest.mark.parametrize("how", ["missing", "env"])
def test_works_without_the_extension(how):
    env = dict(os.environ)
    if how == "env":
        env["MJTABLE_NO_CCORE"] = "1"
        code = _NO_EXTENSION.replace('raise ImportError("blocked")', "return None")
    else:
        code = _NO_EXTENSION
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split()
    assert lines[0] == "False" and lines[1] == ("True" if how == "missing" else "False")
    want = score(Hand((0, 1, 2, 9, 10, 11, 18, 19, 20, 0, 1, 2, 31), (), 31)).total
    assert int(lines[2]) == want


def test_built_extension_matches_a_fresh_profile_object():
    """A Profile made on the fly (not one of PROFILES) gets its own tables in the core."""
    prof = dataclasses.replace(PROFILES["competition"], name="competition+knitted", knitted_all_chows=True,
                               knitted_tile_hog=True)
    for h in flagged_hands(800, SEED + 5):
        assert fast.score(h, prof) == fast._fast(h, prof), format_hand(h)


def test_melds_and_situations_by_hand():
    hands = [
        Hand((0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8), (), 4, (), Situation(self_drawn=True)),       # 九莲宝灯
        Hand((9,), (Meld(KONG, 0, concealed=True), Meld(KONG, 27, source="left"),
                      Meld(KONG, 31, source="across", added=True), Meld(KONG, 18, source="right")), 9,
             (34, 35), Situation(self_drawn=True, kong_replacement=True, seat_wind=28)),               # 四杠
        Hand((0, 3, 6, 10, 13, 16, 20, 23, 26, 27, 28, 29, 30), (), 31, (), Situation(last_copy=True)),  # 全不靠
        Hand((0, 3, 6, 10, 13, 16, 20, 23, 26, 4), (Meld("chow", 11, source="left", claimed=12),), 4),  # 组合龙
        Hand((27, 27, 27, 28, 28, 28, 29, 29, 29, 31, 31, 31, 30), (), 30,
             (), Situation(self_drawn=True, seat_wind=29, prevalent_wind=27)),                          # 字一色
    ]
    for h in hands:
        for prof in PROFILES_ALL:
            got = ccore.score(h, prof) if ccore.available() else None
            want = fast._fast(h, prof)
            assert want is not None and want.decomposition, format_hand(h)
            assert got is None and DISABLED or got == want, (format_hand(h), prof.name)
            assert fast.score(h, prof) == want
