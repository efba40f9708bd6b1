"""Score many hands: JSON lines in, JSON lines out.

    python -m mjtable.scoring.batch < hands.jsonl > results.jsonl        (also: mjtable batch)

Each input line is one hand (see mjtable.scoring.jsonio for the keys). Each output line is, in input order,

    {"id": ..., "line": n, "hand": "<notation>", "rules": "mcr", "profile": "default", "is_win": true,
     "total": 12, "base": 10, "fans": [{"id", "name_cn", "name_en", "value", "count", "points"}, ...],
     "payments": {...}, "reason": null, "decomposition": ..., "notes": [...]}

plus, for a line with "referee_facts" (MCR), "findings": each fact's finding with its clause and penalty
(mjtable.scoring.rulings.FACTS; the hand itself is not audited here),

or, for a line that cannot be scored (bad JSON, bad notation, impossible hand, engine failure),

    {"line": n, "error": "...", "id": ...}

A bad line never stops the batch. Blank lines are skipped. ``run`` returns the number of error lines.
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
import sys

from mjtable.errors import MjtableError, UsageError

from .engines import RULES, EngineUnavailable, engine
from .jsonio import JsonInputError, hand_from_dict, loads, result_to_dict
from .notation import format_hand
from .situation import SituationError
from .situation import check as check_situation


def score_line(text: str, line_no: int, default_rules: str = "mcr", default_profile: str | None = None) -> dict:
    """One input line -> one output object (an error object if the line cannot be scored)."""
    ident = None
    try:
        d = loads(text.strip())
        if isinstance(d, dict):  # our own object, parsed from the line: filled in place
            ident = d.get("id")
            if "rules" not in d:
                d["rules"] = default_rules
            if "profile" not in d and default_profile and d["rules"] == default_rules:
                d["profile"] = default_profile
        hand, rules, profile = hand_from_dict(d)
        try:
            check_situation(hand.situation, rules, hand, profile)
        except SituationError as e:
            raise JsonInputError(str(e)) from None
        score = _engine(rules)
        try:
            res = score(hand, profile=profile)
        except (ValueError, KeyError) as e:  # e.g. unknown profile
            raise JsonInputError(f"{rules}: {e}") from None
        if res.problems:  # the engine validated the hand: it cannot exist
            raise JsonInputError("impossible hand: " + "; ".join(res.problems))
        out = {"id": ident} if ident is not None else {}
        out["line"] = line_no
        out["hand"] = format_hand(hand)
        out.update(result_to_dict(res))
        if "referee_facts" in d:
            out["findings"] = _fact_findings(d["referee_facts"], rules)
        return out
    except JsonInputError as e:
        return _error(line_no, str(e), ident)
    except Exception as e:  # an engine bug must not stop the batch
        return _error(line_no, f"internal error: {type(e).__name__}: {e}", ident)


def _fact_findings(facts, rules: str) -> list[dict]:
    """A line's referee facts (a list of names, mjtable.scoring.rulings.FACTS) as findings."""
    from .jsonio import findings_to_dict
    from .rulings import check_facts, fact_findings

    if not isinstance(facts, list) or not all(isinstance(x, str) for x in facts):
        raise JsonInputError('referee_facts: want a list of fact names, e.g. ["early_draw", "warnings_before=1"]')
    try:
        return findings_to_dict(fact_findings(check_facts(tuple(facts), rules)))
    except ValueError as e:
        raise JsonInputError(f"referee_facts: {e}") from None


_SCORERS: dict = {}


def _engine(rules: str):
    """The engine's score function (selected in scoring.engines), looked up once per rule system."""
    got = _SCORERS.get(rules)
    if got is None:
        try:
            got = _SCORERS[rules] = engine(rules).score
        except EngineUnavailable as e:
            raise JsonInputError(str(e)) from None
    return got


_SURROGATE = re.compile("[\ud800-\udfff]")
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode  # made once, not per line


def to_json_line(out: dict, surrogates: bool = True) -> tuple[str, bool]:
    """One output record as a line of strict JSON (no NaN) that encodes as UTF-8, and whether it is an error
    record: a lone surrogate from the input (an id "\\ud800") becomes U+FFFD; a record that still cannot be
    written (a NaN id) becomes an error record. ``surrogates=False``: the caller knows there can be none."""
    try:
        text = _ENCODE(out)
    except (ValueError, TypeError) as e:
        out = _error(out.get("line"), f"cannot write the result as JSON: {e}", None)
        text = json.dumps(out)
    return _SURROGATE.sub("\ufffd", text) if surrogates else text, "error" in out


def _error(line_no: int | None, message: str, ident) -> dict:
    out = {"line": line_no, "error": message}
    if ident is not None:
        out["id"] = ident
    return out


MAX_LINE = 1 << 16  # characters in one input line; a longer line is one error record


def read_lines(stream, limit: int = MAX_LINE):
    """The lines of a text stream, each read with at most ``limit`` + 1 characters in memory: a longer line
    comes as None, the rest of it read in pieces of that size and dropped up to the next newline."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith("\n"):
            yield None  # its error record goes out now; the rest of the line is skipped after
            while line and not line.endswith("\n"):
                line = stream.readline(limit + 1)
        else:
            yield line


def run(in_stream, out_stream, rules: str = "mcr", profile: str | None = None, flush: bool = True) -> int:
    """Score every line of ``in_stream`` into ``out_stream``; returns the number of error lines. ``flush``:
    after every line (a pipe's writer may wait for each result before it sends the next hand). A line over
    MAX_LINE characters is an error record, never held whole in memory."""
    lines = read_lines(in_stream)
    if sys.stderr.isatty():  # a progress bar only for a person watching (tqdm's disable=None rule)
        from tqdm import tqdm

        lines = tqdm(lines, desc="hands", unit="line", leave=False)
    errors = 0
    for n, line in enumerate(lines, 1):
        if line is None:
            text, failed = to_json_line(_error(n, f"line longer than {MAX_LINE} characters: not read", None), False)
        elif not line.strip():
            continue
        else:
            # a lone surrogate can only come from a JSON escape in the line (the input is decoded with "replace")
            text, failed = to_json_line(score_line(line, n, rules, profile), "\\u" in line)
        errors += failed
        out_stream.write(text + "\n")
        if flush:
            out_stream.flush()
    return errors


def main(argv=None, prog: str = "python -m mjtable.scoring.batch") -> int:
    """Score the JSON lines of stdin to stdout. A usage error raises UsageError: one line, exit 2."""
    argv = sys.argv[1:] if argv is None else argv
    if argv:  # argparse (and the shutil it loads) only when there are options to read
        import argparse

        class Parser(argparse.ArgumentParser):
            def error(self, message: str):  # one line, as mjtable.cli answers
                raise UsageError(f"{message} (see {self.prog} --help)")

        ap = Parser(prog=prog, description="Score JSON-lines hands from stdin to stdout.")
        ap.add_argument("--rules", choices=sorted(RULES), default="mcr", help="rules for lines that do not say")
        ap.add_argument("--profile", help="profile for lines that do not say (default: the rules' default)")
        args = ap.parse_args(argv)
        rules, profile = args.rules, args.profile
        if profile is not None:  # an unknown one is a usage error once, not an error on every line
            from .engines import resolve_profile

            resolve_profile(rules, profile)
    else:
        rules, profile = "mcr", None
    import gc

    try:
        _engine(rules)  # import the default engine now, so that ...
    except JsonInputError:  # (an engine that cannot load is reported on each line)
        pass
    gc.freeze()  # ... what the imports made, never garbage, is skipped by the collector
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    try:  # a file is read whole: its results go out in blocks, not line by line
        streamed = not stat.S_ISREG(os.fstat(sys.stdin.fileno()).st_mode)
    except (OSError, ValueError, AttributeError):
        streamed = True
    stdout = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", line_buffering=streamed)
    try:
        errors = run(stdin, stdout, rules, profile, flush=streamed)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # reader went away (e.g. piped into head)
        sys.stdout = open(os.devnull, "w")
        return 1
    finally:
        try:
            stdout.flush()
            stdout.detach()
        except (BrokenPipeError, ValueError):
            pass
    if errors:
        print(f'{errors} line(s) could not be scored (see the "error" lines)', file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except MjtableError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(e.exit_code)
