"""The fast MCR scorer and its tables: the shipped per-suit table is reproducible and right, the table-driven
divider and waits agree with the plain searches, the fast path gives exactly the reference path's ScoreResult
under every profile, the fan rows' ``needs``/``forms`` never skip a fan that scores, and ``mjtable batch`` imports
no vision code."""
import dataclasses
import random
import subprocess
import sys
import zlib

import pytest

from mjtable.scoring.hand import Hand
from mjtable.scoring.mcr import PROFILES, engine, fast, shapes, suit_table
from mjtable.scoring.mcr.context import Ctx
from mjtable.scoring.mcr.fans_situation import flags_for
from mjtable.scoring.mcr.fantable import all_rows
from mjtable.scoring.mcr.randhands import random_hands
from mjtable.scoring.notation import format_hand
from tests.mcr_hands import PROFILES_ALL, flagged_hands

SEED = 7301        # hands no other test draws


def _split(c: list, need_pair: bool) -> bool:
    """Plain search: do the 9 counts split into sets (and one pair if ``need_pair``)?"""
    if need_pair:
        for p in range(9):
            if c[p] >= 2:
                c[p] -= 2
                ok = _split(c, False)
                c[p] += 2
                if ok:
                    return True
        return False
    i = next((r for r in range(9) if c[r]), None)
    if i is None:
        return True
    if c[i] >= 3:
        c[i] -= 3
        ok = _split(c, False)
        c[i] += 3
        if ok:
            return True
    if i <= 6 and c[i + 1] and c[i + 2]:
        for r in (i, i + 1, i + 2):
            c[r] -= 1
        ok = _split(c, False)
        for r in (i, i + 1, i + 2):
            c[r] += 1
        return ok
    return False


def test_shipped_suit_table_is_reproducible():
    keys = suit_table.build_keys()
    assert len(keys) == 21_743
    with open(suit_table.FILE, "rb") as f:
        assert zlib.decompress(f.read()) == suit_table.bitmap(keys)
    assert suit_table.BITS == suit_table.bitmap(keys)


def test_suit_table_agrees_with_a_plain_split_of_every_vector():
    want = set()

    def walk(r, left, c):
        if r == 9:
            n = sum(c)
            if n % 3 != 1 and _split(list(c), n % 3 == 2):
                want.add(suit_table.key(c))
            return
        for k in range(min(4, left) + 1):
            c.append(k)
            walk(r + 1, left - k, c)
            c.pop()

    walk(0, 14, [])
    assert want == set(suit_table.build_keys())
    assert sum(suit_table.complete(k) for k in range(suit_table.N_KEYS)) == len(want)


def _vectors(n, seed):
    rng = random.Random(seed)
    out = []
    for h in random_hands(n, seed):
        c = [0] * 34
        for t in h.concealed:
            c[t] += 1
        out.append(c)
        c = list(c)
        c[h.winning_tile] += 1
        out.append(c)
    for _ in range(n):
        c = [0] * 34
        size = rng.choice((1, 2, 4, 5, 7, 8, 10, 11, 13, 14))
        pool = rng.sample(range(34), rng.randint(4, 12))
        while sum(c) < size:
            t = rng.choice(pool)
            if c[t] < 4:
                c[t] += 1
        out.append(c)
    return out


def test_divider_and_waits_agree_with_the_plain_search():
    for c in _vectors(4000, SEED):
        n = sum(c)
        if n % 3 == 2:
            assert shapes._regular(c) == shapes._regular_by_search(tuple(c), (n - 2) // 3), c
        elif n % 3 == 1:
            for fifth in (False, True):
                assert shapes.regular_waits(c, fifth) == shapes._regular_waits_by_search(c, fifth), (c, fifth)




@pytest.mark.parametrize("prof", PROFILES_ALL, ids=[p.name for p in PROFILES_ALL])
def test_fast_path_equals_reference_path(prof):
    engine.clear_caches()
    for h in flagged_hands(2500, SEED + 1):
        got = fast._fast(h, prof)
        assert got is not None, format_hand(h)          # plain valid input never falls back
        assert got == engine.score(h, prof), (format_hand(h), h.situation)


def test_not_winning_and_impossible_hands_are_judged_alike():
    hands = flagged_hands(500, SEED + 2)
    odd = []
    for h in hands:
        t = list(h.concealed)
        odd.append(dataclasses.replace(h, concealed=tuple(t[:-1] + [(t[-1] + 1) % 34]) if t else (0,)))
        odd.append(dataclasses.replace(h, concealed=tuple(t) + (h.winning_tile,)))
    for h in odd:
        assert fast.score(h) == engine.score(h), format_hand(h)


def test_needs_and_forms_never_skip_a_fan_that_scores():
    rows = [r for r in all_rows().values() if r.predicate is not None]
    checked = 0
    for h in flagged_hands(1500, SEED + 3):
        ti = engine._tiles(bytes(sorted(h.concealed)), h.winning_tile, h.melds)
        if ti is None:
            continue
        for prof in (PROFILES["default"], PROFILES["competition"]):
            flags, notes = flags_for(h.situation, prof, ti.in_hand, ti.in_melds, ti.has_kong, ti.n_melds > 0)
            for cand in ti.cands:
                c = Ctx(Hand(ti.concealed, ti.melds, ti.win, (), h.situation), cand, ti.counts_all, ti.standing,
                        prof, list(notes), ti.mkey)
                c.flags, c.flags_key = flags, tuple(flags.values())
                have = (len(c.chows), len(c.pungs), c.n_kongs, c.n_concealed_pungs)
                for r in rows:
                    if r.house and not prof.extra_fans:
                        continue
                    if r.predicate(c):
                        checked += 1
                        assert all(h_ >= n for h_, n in zip(have, r.needs)), (r.id, have, format_hand(h))
                        assert not r.forms or c.form in r.forms, (r.id, c.form)
    assert checked > 10_000


def test_batch_imports_no_vision_code():
    code = ("import sys; from mjtable.launch import main; rc = main(['batch']); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'cv2', 'onnxruntime', 'pydantic', "
            "'tqdm') or m.startswith('mjtable.vision')))")
    p = subprocess.run([sys.executable, "-c", code], input='{"hand": "123m456p789s123m5z +5z"}\n',
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert '"total": 12' in lines[0] and lines[-1] == "[]"
