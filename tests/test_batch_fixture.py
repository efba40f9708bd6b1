"""Batch scoring of tests/fixtures/hands.jsonl against known results (hand-worked, checked with pymahjonggb)."""
import io
import json
from pathlib import Path

import pytest

from mjtable.scoring import batch
from mjtable.scoring import tiles as T
from mjtable.scoring.jsonio import hand_from_dict

FIX = Path(__file__).parent / "fixtures"
LINES = (FIX / "hands.jsonl").read_text(encoding="utf-8").splitlines()
EXPECTED = json.loads((FIX / "hands_expected.json").read_text(encoding="utf-8"))
RESULTS = EXPECTED["results"]


@pytest.fixture(scope="module")
def outputs():
    out = io.StringIO()
    errors = batch.run(io.StringIO("\n".join(LINES) + "\n"), out)
    rows = [json.loads(x) for x in out.getvalue().splitlines()]
    return errors, rows


def test_one_output_per_line_and_error_lines(outputs):
    errors, rows = outputs
    assert [r["line"] for r in rows] == list(range(1, len(LINES) + 1))
    bad = {str(r["line"]): r["error"] for r in rows if "error" in r}
    expected_bad = EXPECTED["error_lines"]
    assert bad.keys() == expected_bad.keys()
    for line, fragment in expected_bad.items():
        assert fragment in bad[line]
    assert errors == len(bad)


@pytest.mark.parametrize("ident", sorted(RESULTS))
def test_fixture_hand(ident, outputs):
    row = next(r for r in outputs[1] if r.get("id") == ident)
    assert "error" not in row, row
    want = RESULTS[ident]
    for key in ("is_win", "total", "base", "payments"):
        if key in want:
            assert row[key] == want[key], (ident, key, row)
    if "fans" in want:
        assert sorted((f["name_cn"], f["points"]) for f in row["fans"]) == sorted(map(tuple, want["fans"])), row
    if not want["is_win"]:
        assert row["reason"]


# ---------------------------------------------------------------- independent check of the expectations

def _gb_tile(t):
    s, r = T.suit(t), T.rank(t)
    if s < T.HONOR:
        return "WBT"[s] + str(r)
    return f"F{r}" if r <= 4 else {5: "J3", 6: "J2", 7: "J1"}[r]


_GB_SOURCE = {"left": 3, "across": 2, "right": 1}
_GB_NAMES = {"独听・单钓": "单钓将"}


def _gb_score(gb, hand):
    packs = []
    for m in hand.melds:
        if m.kind == "chow":
            packs.append(("CHI", _gb_tile(m.tile + 1), 1))
        elif m.kind == "pung":
            packs.append(("PENG", _gb_tile(m.tile), _GB_SOURCE[m.source]))
        else:
            packs.append(("GANG", _gb_tile(m.tile), 0 if m.concealed else _GB_SOURCE[m.source]))
    s = hand.situation
    return gb.MahjongFanCalculator(
        tuple(packs), tuple(_gb_tile(t) for t in hand.concealed), _gb_tile(hand.winning_tile), len(hand.flowers),
        s.self_drawn, s.last_copy, s.kong_replacement or s.robbing_kong, s.last_tile,
        s.seat_wind - T.EAST, s.prevalent_wind - T.EAST, True)


@pytest.mark.parametrize("ident", sorted(k for k in RESULTS if not k.startswith("sc_")))
def test_mcr_expectations_agree_with_pymahjonggb(ident):
    gb = pytest.importorskip("MahjongGB")
    d = next(json.loads(x) for x in LINES if f'"id": "{ident}"' in x)
    hand, rules, _ = hand_from_dict(d)
    assert rules == "mcr"
    want = RESULTS[ident]
    if "base" not in want:                      # not a winning shape at all
        with pytest.raises(TypeError, match="NOT_WIN"):
            _gb_score(gb, hand)
        return
    fans = _gb_score(gb, hand)
    total = sum(points * count for points, count, *_ in fans)
    base = total - len(hand.flowers)
    assert base == want["base"]
    assert (base >= 8) == want["is_win"]
    if want["is_win"]:
        assert total == want["total"]
        got = sorted((_GB_NAMES.get(name, name), points * count) for points, count, name, _ in fans)
        assert got == sorted(map(tuple, want["fans"]))
