"""mjtable.scoring.batch plumbing: one output line per input line, bad lines never stop the batch."""
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mjtable.scoring import batch
from mjtable.scoring.result import FanHit, ScoreResult

ROOT = Path(__file__).resolve().parents[1]


def _fake_engine(rules):
    """Stands in for an engine: counts tiles, refuses a hand without honours, crashes on 9s."""
    def score(hand, profile):
        if hand.problems():                   # like the engines: an impossible hand is not scored
            return ScoreResult(rules, profile, False, reason="impossible", problems=hand.problems())
        if profile == "nope":
            raise ValueError("unknown profile 'nope'")
        if 26 in hand.all_tiles():
            raise RuntimeError("boom")
        if not any(t >= 27 for t in hand.all_tiles()):
            return ScoreResult(rules, profile, False, reason="not a winning shape")
        n = len(hand.all_tiles())
        return ScoreResult(rules, profile, True, [FanHit("tiles", "张", "Tiles", 1, count=n)], total=n + 1,
                           base=n, payments={"each": 8 + n + 1} if hand.situation.self_drawn else {})
    return score


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(batch, "_engine", _fake_engine)


def _run(lines, **kw):
    out = io.StringIO()
    errors = batch.run(io.StringIO("\n".join(lines) + "\n"), out, **kw)
    return errors, [json.loads(x) for x in out.getvalue().splitlines()]


def test_good_and_bad_lines_in_order(fake):
    lines = [
        '{"id": "a", "hand": "123m456p789m11z22z +2z", "self_drawn": true}',
        'this is not json',
        '',
        '{"id": 7, "hand": "123m456p789m11p22p +2p"}',
        '{"hand": "12x"}',
        '{"id": [1], "hand": "123m +1z"}',
        '{"hand": "123m456p789s11z22z +2z"}',
        '{"hand": "123m456p789m11z22z +2z", "rules": "sichuan", "profile": "nope"}',
        '{"hand": "123m456p789m11z22z +2z", "rules": "sichuan"}',
    ]
    errors, out = _run(lines)
    assert errors == 5
    assert [o["line"] for o in out] == [1, 2, 4, 5, 6, 7, 8, 9]
    a = out[0]
    assert a["id"] == "a" and a["is_win"] and a["total"] == 15 and a["base"] == 14
    assert a["payments"] == {"each": 23} and a["fans"][0]["points"] == 14
    assert a["hand"] == "123789m456p1122z +2z"
    assert a["rules"] == "mcr" and a["profile"] == "default"
    assert "invalid JSON" in out[1]["error"]
    assert out[2] == {"id": 7, "line": 4, "hand": out[2]["hand"], "rules": "mcr", "profile": "default",
                      "is_win": False, "total": 0, "base": 0, "fans": [], "payments": {},
                      "reason": "not a winning shape", "decomposition": None, "notes": []}
    assert "bad tile token" in out[3]["error"]
    assert out[4]["id"] == [1] and "impossible hand: wrong tile count" in out[4]["error"]
    assert out[5]["error"] == "internal error: RuntimeError: boom"
    assert "unknown profile" in out[6]["error"]
    assert out[7]["rules"] == "sichuan" and out[7]["profile"] == "sbr2025" and out[7]["is_win"]


def test_default_rules_and_profile_apply_only_where_lines_do_not_say(fake):
    errors, out = _run(['{"hand": "123m456p789m11z22z +2z"}',
                        '{"hand": "123m456p789m11z22z +2z", "rules": "mcr"}',
                        '{"hand": "123m456p789m11z22z +2z", "profile": "x"}'], rules="sichuan", profile="p2")
    assert errors == 0
    assert [(o["rules"], o["profile"]) for o in out] == [("sichuan", "p2"), ("mcr", "default"), ("sichuan", "x")]


def test_missing_engine_is_an_error_line_not_a_crash(monkeypatch):
    from mjtable.scoring import engines
    monkeypatch.setitem(engines.ENGINES, "mcr", ("mjtable.scoring.no_such_engine", "default"))
    monkeypatch.setattr(batch, "_SCORERS", {})          # engines are looked up once per process
    out = batch.score_line('{"hand": "123m456p789m11z22z +2z"}', 3, "mcr")
    assert out == {"line": 3, "error": out["error"]} and "not available" in out["error"]


def test_module_entry_point_exit_code_and_unicode():
    text = 'nope\n{"hand": "一万"}\n\xff\n'.encode("utf-8").replace(b"\xc3\xbf", b"\xff")   # an invalid byte
    p = subprocess.run([sys.executable, "-m", "mjtable.scoring.batch"], input=text, capture_output=True, cwd=ROOT,
                       timeout=60)
    assert p.returncode == 1
    out = [json.loads(x) for x in p.stdout.decode("utf-8").splitlines()]
    assert [o["line"] for o in out] == [1, 2, 3] and all("error" in o for o in out)
    assert "3 line(s) could not be scored" in p.stderr.decode()
    assert "Traceback" not in p.stderr.decode()


def test_from_a_pipe_each_result_comes_before_the_next_hand_is_sent(tmp_path):
    """A program feeding hands one at a time gets each answer at once; a file's results go out in blocks."""
    import select
    hand = json.dumps({"hand": "123m456p789s123m5z +5z"}) + "\n"
    p = subprocess.Popen([sys.executable, "-m", "mjtable.scoring.batch"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, cwd=ROOT)
    try:
        for n in (1, 2):
            p.stdin.write(hand.encode())
            p.stdin.flush()
            ready, _, _ = select.select([p.stdout], [], [], 60)
            assert ready, f"no answer to hand {n} while the pipe stays open"
            assert json.loads(p.stdout.readline())["line"] == n
    finally:
        p.stdin.close()
        p.wait(timeout=60)
    f = tmp_path / "hands.jsonl"
    f.write_text(hand * 3)
    with open(f, "rb") as stdin:
        out = subprocess.run([sys.executable, "-m", "mjtable.scoring.batch"], stdin=stdin, capture_output=True,
                             cwd=ROOT, timeout=60)
    assert [json.loads(x)["total"] for x in out.stdout.decode().splitlines()] == [12, 12, 12]
