"""scripts/evaluate_scoring.py: compares batch results with an 'expected' object per hand."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIX = Path(__file__).parent / "fixtures"


def _labelled_lines():
    expected = json.loads((FIX / "hands_expected.json").read_text(encoding="utf-8"))["results"]
    out = []
    for line in (FIX / "hands.jsonl").read_text(encoding="utf-8").splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            out.append(line)
            continue
        want = expected.get(d.get("id"))
        if want is not None:
            d["expected"] = {k: v for k, v in want.items() if k in ("is_win", "total", "base")}
            if "fans" in want:
                d["expected"]["fans"] = [n for name, pts in want["fans"]
                                         for n in [name] * (pts if name == "花牌" else 1)]
        out.append(json.dumps(d, ensure_ascii=False))
    return out


def _run(tmp_path, lines):
    p = tmp_path / "hands.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "scripts.evaluate_scoring", str(p), "--json"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_fixture_hands_agree_everywhere(tmp_path):
    rep = _run(tmp_path, _labelled_lines())
    assert rep["hands"] == 25 and rep["errors"] == 5
    assert rep["agreement"]["is_win"] == {"agree": 20, "of": 20}
    assert rep["agreement"]["fans"]["agree"] == rep["agreement"]["fans"]["of"] == 15
    assert rep["disagreements"] == []


def test_wrong_expectations_are_reported(tmp_path):
    lines = _labelled_lines()
    d = json.loads(lines[1])                       # pure_straight_discard: 20 points
    d["expected"] = {"total": 21, "fans": ["Pure Straight", "concealed_hand", "清龙"]}
    lines[1] = json.dumps(d, ensure_ascii=False)
    lines.append('{"hand": "12x", "expected": {"is_win": true}}')
    rep = _run(tmp_path, lines)
    assert rep["agreement"]["total"]["of"] - rep["agreement"]["total"]["agree"] == 1
    bad = {x["line"]: x for x in rep["disagreements"]}
    assert set(bad) == {2, 26}
    assert bad[2]["got"]["total"] == 20 and sorted(bad[2]["got"]["fans"]) == sorted(["清龙", "门前清", "平和"])
    assert "bad tile token" in bad[26]["got"]["error"]
