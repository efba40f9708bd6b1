#!/usr/bin/env python
"""Check the scoring engines against hands whose results you know.

    python -m scripts.evaluate_scoring HANDS.jsonl [--json] [--show N]

Each line is a hand as ``python -m mjtable.scoring.batch`` reads it (docs/evaluation.md) plus an ``expected`` object
with any of ``is_win`` (bool), ``total``, ``base`` (ints), ``fans`` (list of fan names, Chinese or English, or
fan ids; a fan scored twice is listed twice). Example::

    {"hand": "123456789m23s55p +4s", "expected": {"is_win": true, "total": 20, "fans": ["清龙", "门前清", "平和"]}}

Prints, for each field, how many hands agree, and the first disagreements. Lines without ``expected`` are
scored but not compared; lines that cannot be scored count as disagreements on every field they expect.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter

from mjtable.scoring.batch import score_line

FIELDS = ("is_win", "total", "base", "fans")


def _fans_match(expected, fans) -> bool:
    """Expected fan names/ids (multiset) against the result's fans, by id, Chinese or English name."""
    got_keys = []
    for f in fans:
        got_keys += [(f["id"], f["name_cn"], f["name_en"].lower())] * f["count"]
    want = Counter(str(x) for x in expected)
    if sum(want.values()) != len(got_keys):
        return False
    remaining = list(got_keys)
    for name, n in want.items():
        for _ in range(n):
            hit = next((k for k in remaining if name in k or name.lower() in k), None)
            if hit is None:
                return False
            remaining.remove(hit)
    return True


def compare(expected: dict, row: dict) -> dict[str, bool]:
    out = {}
    for field in FIELDS:
        if field not in expected:
            continue
        if "error" in row:
            out[field] = False
        elif field == "fans":
            out[field] = _fans_match(expected["fans"], row["fans"])
        else:
            out[field] = row[field] == expected[field]
    return out


def evaluate(lines) -> dict:
    agree, seen = Counter(), Counter()
    disagreements, errors, n_hands = [], 0, 0
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        n_hands += 1
        expected = {}
        try:
            d = json.loads(line)
            if isinstance(d, dict) and "expected" in d:
                expected = d.pop("expected")
                if not isinstance(expected, dict):
                    raise ValueError
                line = json.dumps(d)
        except ValueError:
            pass                                  # score_line reports the bad line
        row = score_line(line, n)
        errors += "error" in row
        verdict = compare(expected, row)
        for field, ok in verdict.items():
            seen[field] += 1
            agree[field] += ok
        if not all(verdict.values()):
            got = {"error": row["error"]} if "error" in row else \
                {k: ([f"{f['name_cn']}x{f['count']}" if f["count"] > 1 else f["name_cn"] for f in row[k]]
                     if k == "fans" else row[k]) for k in expected if k in FIELDS}
            disagreements.append({"line": n, "id": row.get("id"), "expected": expected, "got": got})
    return {"hands": n_hands, "errors": errors,
            "agreement": {f: {"agree": agree[f], "of": seen[f]} for f in FIELDS if seen[f]},
            "disagreements": disagreements}


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("hands", help="JSON lines with an 'expected' object per hand")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--show", type=int, default=20, help="how many disagreements to list")
    return ap


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        with open(args.hands, encoding="utf-8", errors="replace") as f:
            report = evaluate(f)
    except OSError as e:
        print(f"evaluate_scoring: error: cannot read {args.hands}: {e.strerror or e}", file=sys.stderr)
        return 2
    if args.json:
        text = json.dumps(report, ensure_ascii=False)
    else:
        parts = [f"hands: {report['hands']}  could not be scored: {report['errors']}"]
        for field, a in report["agreement"].items():
            parts.append(f"  {field:<7} {a['agree']:>5} / {a['of']:<5} agree ({100 * a['agree'] / a['of']:.1f}%)")
        for d in report["disagreements"][:args.show]:
            parts.append(f"line {d['line']}{'' if d['id'] is None else ' (' + str(d['id']) + ')'}: "
                         f"expected {json.dumps(d['expected'], ensure_ascii=False)}, "
                         f"got {json.dumps(d['got'], ensure_ascii=False)}")
        text = "\n".join(parts)
    try:
        print(text, flush=True)
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")
    return 0


if __name__ == "__main__":
    sys.exit(main())
