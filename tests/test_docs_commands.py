"""Every command block of README.md and docs/*.md runs here, and where a doc shows the output, it is compared.

A fenced block without a language (or ``bash``/``sh``/``console``) is read one of three ways:

* console: lines starting with ``$ `` are commands, the lines after each one (up to the next ``$ ``) its output;
* commands: every line is a command (``mjtable``, ``python``, ``pip``, ``apt-get``, ``NAME=value``); a line ending
  in ``\\`` or an indented line goes on the line before, ``# ...`` is a comment (an indented comment line goes on
  the comment before);
* text (output, diagrams, file layouts, settle input): no line of it may read as a command.

Each command is then checked one way, and none is passed over:

* run: in a subprocess, in a scratch copy of the repository's root (links to its files, so that what a command
  writes stays out of the checkout), with this venv's ``bin`` first on PATH, under a time limit. Its exit code is
  0 or the one its comment states (``exit N``); output shown in a console block must match (whitespace
  normalised, ``…`` for lines left out, milliseconds and the dashboard's port masked), and a comment's figures
  (fans with their points, the total, ``N points``, ``base N``, ``printed as``) must be in its output;
* arguments: a long job (training, evaluation, benchmarks and data preparation need hours, the git-ignored
  ``data/`` or the shared data sets; ``mjtable serve`` runs until stopped) has its arguments parsed by the
  script's own parser (``build_parser()``), or, for the command line, each of its flags found in
  ``mjtable SUBCOMMAND --help``; a synopsis (``[--flag VALUE]``, ``A | B``, ``PLACEHOLDER``) likewise, and
  its alternatives without placeholders run;
* listed: the few that cannot run here (installing), in LISTED with the reason and what is checked instead.

Two commands show their output in the text blocks after them (SHOWN_AFTER): the README's audit report and the
archive's two runs; each has its own test.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
DOCS = ["README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]
SHELL_LANGS = ("", "bash", "sh", "console", "shell")
COMMAND = re.compile(r"^(mjtable|python3?|pip3?|apt-get)(\s|$)|^[A-Z_]+=")
BIN = Path(sys.executable).parent
TIMEOUT = 300

# doc, command -> why it does not run here, and the check made in its place (test_listed_commands)
LISTED = {
    ("README.md", "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/mjtable examples/real_hand.jpg"):
        "makes a venv and installs from the package index: tests/test_wheel.py installs the built wheel in a fresh "
        "venv and reads this photo with it; here its last step runs, with this venv's mjtable",
    ("README.md", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
                  "--no-install-recommends fonts-arphic-ukai fonts-arphic-uming fonts-dejavu-core fonts-noto-cjk "
                  "fonts-noto-core fonts-symbola fonts-wqy-microhei fonts-wqy-zenhei gnome-mahjongg "
                  "kdegames-mahjongg-data-kf5 xmahjongg chromium chromium-driver && python3 -m venv .venv && "
                  ".venv/bin/pip install -q -e '.[test,train]' && .venv/bin/python -m pytest -q --no-skips"):
        "the test command installs Debian packages as root: it is CI itself (.ci/run runs this very line)",
    ("docs/archive.md", "pip install 'mjtable[archive]'"):
        "installs from the package index: the extra is declared in pyproject.toml, and the test extra this suite "
        "runs with holds its packages",
}
# command prefixes whose arguments are checked, not run (test_long_commands_take_their_arguments)
ARGS_ONLY = {
    "python -m scripts.": "training, evaluation, data preparation and benchmarks: hours of work, the git-ignored "
                          "data/ or the shared data sets (their own tests run them on small inputs)",
    "python -m mjtable.datasets.generate": "writes hundreds or thousands of scenes",
    "mjtable serve": "a server: it runs until stopped (tests/test_web*.py serve the app)",
    "mjtable evaluate": "the detector over a whole labelled set, such as the shared photos kept beside a checkout "
                        "(tests/test_evaluate_detector.py runs it on a small fixture)",
}
# commands whose output is the text block(s) after theirs, each with its own test
SHOWN_AFTER = {
    ("README.md", "mjtable audit examples/phone_hand.jpg --format html --out report.html"):
        "test_audit_report_shows_the_excerpt",
    ("docs/archive.md", "mjtable archive league/ --out results/ --every 0.5"):
        "test_archive_runs_as_the_doc_shows",
}


@dataclass(frozen=True)
class Block:
    doc: str
    line: int                 # of the opening fence
    lang: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Command:
    doc: str
    line: int
    text: str                 # the command, continuation lines joined, no comment, no prompt
    comment: str
    shown: tuple[str, ...] | None     # the output a console block shows after it
    block: int                # the block's opening line
    env: tuple[tuple[str, str], ...] = ()     # NAME=value lines before it in its block

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def blocks(doc: str) -> list[Block]:
    lines = (ROOT / doc).read_text(encoding="utf-8").split("\n")
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        out.append(Block(doc, i + 1, m.group(1), tuple(lines[i + 1:j])))
        i = j + 1
    return out


def _split_comment(line: str) -> tuple[str, str]:
    """(command, comment): the comment starts at a '#' outside quotes after a blank."""
    quote = None
    for k, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (k == 0 or line[k - 1] in " \t"):
            return line[:k].rstrip(), line[k + 1:].strip()
    return line.rstrip(), ""


def _logical(lines) -> list[tuple[int, str, str]]:
    """(offset, command, comment) of a command block's lines: continuations joined, comment lines gathered."""
    out: list[list] = []
    joined = False
    for k, raw in enumerate(lines):
        if not raw.strip():
            joined = False
            continue
        text, comment = _split_comment(raw)
        go_on = joined or (raw[:1].isspace() and out)
        if go_on and out:
            out[-1][1] = (out[-1][1] + " " + text.strip().rstrip("\\").strip()).strip()
            out[-1][2] = (out[-1][2] + " " + comment).strip()
        else:
            out.append([k, text.rstrip("\\").strip(), comment])
        joined = text.endswith("\\")
    return [(k, t, c) for k, t, c in out]


def kind(block: Block) -> str:
    if block.lang not in SHELL_LANGS:
        return "other"
    firsts = [ln for ln in block.lines if ln.strip()]
    if any(ln.startswith("$ ") for ln in firsts):
        return "console"
    return "commands" if firsts and COMMAND.match(firsts[0]) else "text"


def commands_of(block: Block) -> list[Command]:
    if kind(block) == "console":
        out, starts = [], [k for k, ln in enumerate(block.lines) if ln.startswith("$ ")]
        assert starts[0] == 0 or not any(ln.strip() for ln in block.lines[:starts[0]]), block
        for n, k in enumerate(starts):
            end = starts[n + 1] if n + 1 < len(starts) else len(block.lines)
            text, comment = _split_comment(block.lines[k][2:])
            out.append(Command(block.doc, block.line + 1 + k, text, comment, tuple(block.lines[k + 1:end]),
                               block.line))
        return out
    if kind(block) != "commands":
        return []
    out, env = [], []
    for k, text, comment in _logical(block.lines):
        m = re.fullmatch(r"([A-Z_]+)=(\"[^\"]*\"|\S*)", text)
        if m:
            env.append((m.group(1), m.group(2).strip('"')))
        out.append(Command(block.doc, block.line + 1 + k, text, comment, None, block.line, tuple(env)))
    return out


ALL_BLOCKS = [b for d in DOCS for b in blocks(d)]
ALL = [c for b in ALL_BLOCKS for c in commands_of(b)]


def way(c: Command) -> str:
    """listed, shown-after, assignment, synopsis, args or run."""
    if (c.doc, c.text) in LISTED:
        return "listed"
    if (c.doc, c.text) in SHOWN_AFTER:
        return "shown-after"
    if re.fullmatch(r"[A-Z_]+=.*", c.text):
        return "assignment"
    if synopsis(c.text):
        return "synopsis"
    if any(c.text.startswith(p) for p in ARGS_ONLY):
        return "args"
    return "run"


PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*[A-Z0-9](\.\.\.|\.[a-z]+)?$")


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def synopsis(text: str) -> bool:
    """A command's shape rather than a command: optional parts, alternatives or placeholders."""
    bare = re.sub(r"'[^']*'|\"[^\"]*\"", "''", text)
    return "[" in bare or " | " in bare or any(PLACEHOLDER.match(w) for w in _words(bare))


# ---------------------------------------------------------------- output

def _norm(line: str) -> str:
    """Whitespace collapsed; a time in milliseconds and the dashboard's port masked (they change run to run)."""
    line = re.sub(r"\b\d+ ms\b", "N ms", " ".join(line.split()))
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", line)


def output_mismatch(shown, actual: str) -> str | None:
    """None when the actual output is the shown one: every shown line in order, consecutive except where a line
    '…' leaves some out, from the first line to the last unless '…' opens or closes the shown lines."""
    want = [_norm(s) for s in shown if s.strip()]
    got = [_norm(s) for s in actual.splitlines() if s.strip()]
    parts, cur = [], []
    for w in want:
        if w == "…":
            parts.append(cur)
            cur = []
        else:
            cur.append(w)
    parts.append(cur)
    pos = 0
    for n, part in enumerate(parts):
        if not part:
            continue
        starts = [i for i in range(pos, len(got) - len(part) + 1) if got[i:i + len(part)] == part]
        if n == 0 and starts and starts[0] != 0:
            starts = []                                    # the first shown line is the first line
        if not starts:
            return f"not found in order: {part[0]!r} ...\n--- got:\n" + "\n".join(got)
        pos = starts[0] + len(part)
    if parts[-1] and pos != len(got):
        return f"more lines than shown after {parts[-1][-1]!r}:\n" + "\n".join(got[pos:])
    return None


def claims(comment: str) -> list[tuple[str, object]]:
    """What a `mjtable score` command's comment says of its output: (claim, test of the output)."""
    out: list[tuple[str, object]] = []
    lines = lambda o: [ln.strip() for ln in o.splitlines()]          # noqa: E731
    for no, name, num in re.findall(r"(no )?([\u4e00-\u9fff]{2,})(?: (\d+)(?![\d-]))?", comment):
        fan = re.compile(rf"{name}\s" + (rf".*\s{num}(\s+x\d+)?\s+=" if num else ""))
        if no:
            out.append((f"no {name}", lambda o, f=fan: not any(f.match(ln) for ln in lines(o))))
        else:
            out.append((f"{name} {num}".strip(), lambda o, f=fan: any(f.match(ln) for ln in lines(o))))
    checks = [(r"(\d+) (分|番)", lambda m: lambda o: any(ln.startswith(f"Total: {m[1]} {m[2]}") for ln in lines(o))),
              (r"without flowers (\d+)", lambda m: lambda o: f"(without flowers {m[1]})" in o),
              (r"base (\d+)", lambda m: lambda o: f"(base {m[1]})" in o),
              (r"each pays (\d+)", lambda m: lambda o: f"Payments: each {m[1]}" in o),
              (r"(?<!under )\b(\d+) points", lambda m: lambda o: f"minimum: {m[1]} points" in o),
              (r"under (\d+) points", lambda m: lambda o: f"under the {m[1]}-point minimum" in o),
              (r"printed as (.+)$", lambda m: lambda o: f"Hand: {m[1].strip()}" in lines(o)),
              (r"([a-z_]{4,}) finding", lambda m: lambda o: f"] {m[1]} (" in o)]
    for pattern, test in checks:
        out += [(m[0], test(m)) for m in re.finditer(pattern, comment)]
    return out


def expected_exit(c: Command) -> int:
    m = re.search(r"\bexit (\d+)", c.comment)
    return int(m.group(1)) if m else 0


# ---------------------------------------------------------------- running

@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A scratch copy of the repository's root: a link to each of its files and folders (not the git-ignored
    ones), so that commands run as from the root and what they write stays out of the checkout."""
    d = tmp_path_factory.mktemp("root")
    ignored = {".git", ".venv", "data", "runs", "build", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".yolo"}
    for p in ROOT.iterdir():
        if p.name not in ignored and not p.name.endswith(".egg-info"):
            (d / p.name).symlink_to(p)
    return d


def run(text: str, cwd: Path, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(text, shell=True, executable=shutil.which("bash") or "/bin/sh", cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def check_run(c: Command, cwd: Path) -> None:
    r = run(c.text, cwd)
    assert r.returncode == expected_exit(c), f"{c.id}: {c.text}\nexit {r.returncode}\n{r.stderr[-3000:]}"
    if c.shown is not None:
        bad = output_mismatch(c.shown, r.stdout)
        assert bad is None, f"{c.id}: {c.text}\n{bad}"
    for what, test in claims(c.comment):
        assert test(r.stdout), f"{c.id}: {c.text}\nthe comment says {what!r}; the output:\n{r.stdout}"


RUN_BLOCKS = sorted({(c.doc, c.block) for c in ALL if way(c) == "run"})


@pytest.mark.parametrize("doc,block", RUN_BLOCKS, ids=[f"{d}:{b}" for d, b in RUN_BLOCKS])
def test_command_blocks_run_as_shown(doc, block, scratch):
    """The commands of a block, in order (a later one may read what an earlier one wrote)."""
    for c in ALL:
        if (c.doc, c.block) == (doc, block) and way(c) == "run":
            check_run(c, scratch)


# ---------------------------------------------------------------- arguments

@lru_cache(maxsize=None)
def parser_of(module: str) -> argparse.ArgumentParser:
    """The parser of a script or a package module run with ``python -m`` (its ``build_parser()``)."""
    mod = importlib.import_module(module)
    assert hasattr(mod, "build_parser"), f"{module} has no build_parser(): give it one so that docs can be checked"
    return mod.build_parser()


@lru_cache(maxsize=None)
def help_of(words: tuple[str, ...], cwd: str) -> str:
    r = run(shlex.join([*words, "--help"]), Path(cwd), timeout=120)
    assert r.returncode == 0, f"{shlex.join(words)} --help: exit {r.returncode}\n{r.stderr}"
    return r.stdout


def _expand(text: str, env) -> str:
    for name, value in env:
        text = re.sub(rf"\${{?{name}\b}}?", value, text)
    return text


def _without_redirects(words: list[str]) -> list[str]:
    out, skip = [], False
    for w in words:
        if skip:
            skip = False
        elif w in ("<", ">", ">>", "2>"):
            skip = True
        else:
            out.append(w)
    return out


def _flags(text: str) -> list[str]:
    bare = re.sub(r"'[^']*'|\"[^\"]*\"", "''", text)
    return re.findall(r"(?<![\w/.-])(--?[A-Za-z][\w-]*)", bare)


def _head(words: list[str]) -> tuple[list[str], list[str]]:
    """(the program: ``python -m MODULE``, ``mjtable [SUBCOMMAND]``, its arguments)."""
    if words[:2] == ["python", "-m"]:
        return words[:3], words[3:]
    from mjtable.cli import SUBCOMMANDS
    n = 2 if len(words) > 1 and words[1] in SUBCOMMANDS else 1
    return words[:n], words[n:]


def parse_error(program: list[str], args: list[str], text: str) -> str | None:
    """None when the program takes the arguments: a module's own parser parses them, the command line's help
    names every flag of ``text`` (the command: its flags after the program are checked)."""
    text = (text.split(None, len(program)) + [""])[len(program)]
    if program[:2] == ["python", "-m"] and hasattr(importlib.import_module(program[2]), "build_parser"):
        ap = parser_of(program[2])
        unknown = [f for f in _flags(text) if f not in ap._option_string_actions]
        if unknown:
            return f"unknown flags {unknown}"
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.suppress(SystemExit):
            ap.parse_args(args)
            return None
        return err.getvalue().strip().splitlines()[-1]
    shown = help_of(tuple(program), str(ROOT))
    missing = [f for f in _flags(text) if not re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", shown)]
    return f"flags not in {' '.join(program)} --help: {missing}" if missing else None


def _without_brackets(text: str) -> str:
    out, depth = [], 0
    for ch in text:
        depth += ch == "["
        if not depth:
            out.append(ch)
        depth -= ch == "]" and depth > 0
    return " ".join("".join(out).split())


def alternatives(text: str) -> list[str]:
    """The forms of a synopsis ``A | B``: split where '|' stands alone outside brackets and quotes; a form that
    starts with a flag takes the program of the first one."""
    parts, cur, depth, quote = [], "", 0, None
    for k, ch in enumerate(text):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        depth += (ch == "[") - (ch == "]")
        if ch == "|" and not depth and not quote and text[k - 1:k] == " " and text[k + 1:k + 2] == " ":
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    program = _head(_words(parts[0]))[0]
    return [parts[0]] + [" ".join(program) + " " + p if p.startswith("-") else p for p in parts[1:]]


ARGS = [c for c in ALL if way(c) in ("args", "synopsis")]


@pytest.mark.parametrize("c", ARGS, ids=[c.id for c in ARGS])
def test_long_commands_and_synopses_take_their_arguments(c, scratch):
    """A long job's arguments are parsed by its own parser (every flag known); a synopsis's flags are known and
    its form without the optional parts parses; a form of a synopsis with nothing left to fill in runs."""
    for form in alternatives(_expand(c.text, c.env)):
        if not synopsis(form) and not any(form.startswith(p) for p in ARGS_ONLY):
            r = run(form, scratch, timeout=120)
            assert r.returncode == 0, f"{c.id}: {form}: exit {r.returncode}\n{r.stderr}"
            continue
        program, _ = _head(_without_redirects(_words(form)))
        args = _head(_without_redirects(_words(_without_brackets(form))))[1]
        err = parse_error(program, args, form)
        assert err is None, f"{c.id}: {form}\n{err}"


# ---------------------------------------------------------------- listed, and shown after

def check_install_line(scratch: Path) -> None:
    r = run("mjtable examples/real_hand.jpg", scratch)
    assert r.returncode == 0 and "Total: 88 分" in r.stdout, r.stderr


def check_ci_line(scratch: Path) -> None:
    (cmd,) = [c.text for c in ALL if c.doc == "README.md" and c.text.startswith("apt-get")]
    assert cmd in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def check_archive_extra(scratch: Path) -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    extra = re.search(r"^archive = \[(.*?)\]$", text, re.M | re.S)
    test = re.search(r"^test = \[(.*?)\]$", text, re.M | re.S)
    assert extra and test and set(re.findall(r'"([^"]+)"', extra[1])) <= set(re.findall(r'"([^"]+)"', test[1]))


LISTED_CHECKS = dict(zip(LISTED, (check_install_line, check_ci_line, check_archive_extra)))


@pytest.mark.parametrize("key", list(LISTED), ids=[f"{d}:{t[:30]}" for d, t in LISTED])
def test_listed_commands(key, scratch):
    """A command that cannot run here is in the docs (no stale entry) and is checked another way."""
    assert key in {(c.doc, c.text) for c in ALL}, f"no longer in {key[0]}: {key[1]}"
    LISTED_CHECKS[key](scratch)


def _text_blocks_after(doc: str, line: int, n: int) -> list[Block]:
    after = [b for b in ALL_BLOCKS if b.doc == doc and b.line > line and kind(b) == "text"]
    assert len(after) >= n, (doc, line)
    return after[:n]


def _shown_after(test: str) -> Command:
    ((doc, text),) = [k for k, v in SHOWN_AFTER.items() if v == test]
    (c,) = [c for c in ALL if (c.doc, c.text) == (doc, text)]
    return c


def test_audit_report_shows_the_excerpt(scratch):
    """The README's audit writes the HTML report; its Markdown form holds the lines shown after it."""
    c = _shown_after("test_audit_report_shows_the_excerpt")
    check_run(Command(c.doc, c.line, c.text, c.comment, None, c.block), scratch)
    assert "under_minimum" in (scratch / "report.html").read_text(encoding="utf-8")
    r = run(c.text.replace("--format html --out report.html", "--format md --out report.md"), scratch)
    assert r.returncode == 0, r.stderr
    (excerpt,) = _text_blocks_after(c.doc, c.line, 1)
    bad = output_mismatch(["…", *excerpt.lines, "…"], (scratch / "report.md").read_text(encoding="utf-8"))
    assert bad is None, bad


def _league(root: Path) -> None:
    """The league docs/archive.md describes: g1/ three photos and a corrupt one, g2/hands.jsonl 8 hands,
    g2/typed.txt one hand and a line that is not one, game.avi two hands laid down in turn, a readme.md."""
    import cv2
    examples, lg = ROOT / "examples", root / "league"
    (lg / "g1").mkdir(parents=True)
    (lg / "g2").mkdir()
    for name in ("phone_win.jpg", "phone_hand.jpg", "overhead.jpg"):
        shutil.copy(examples / name, lg / "g1" / name)
    (lg / "g1" / "corrupt.jpg").write_bytes((examples / "phone_win.jpg").read_bytes()[:4000])
    hands = (ROOT / "tests" / "fixtures" / "hands.jsonl").read_text(encoding="utf-8").splitlines()[:8]
    (lg / "g2" / "hands.jsonl").write_text("\n".join(hands) + "\n", encoding="utf-8")
    (lg / "g2" / "typed.txt").write_text("123m456p789s1z [555z^] +1z\nnot a hand\n", encoding="utf-8")
    frames = [cv2.imread(str(examples / n)) for n in ("phone_win.jpg", "phone_hand.jpg")]
    h, w = frames[0].shape[:2]
    vw = cv2.VideoWriter(str(lg / "game.avi"), cv2.VideoWriter_fourcc(*"MJPG"), 2.0, (w, h))
    for f in frames:
        for _ in range(3):
            vw.write(cv2.resize(f, (w, h)))
    vw.release()
    (lg / "readme.md").write_text("scores of the spring league\n", encoding="utf-8")


def test_archive_runs_as_the_doc_shows(tmp_path):
    """docs/archive.md: the archive of the league it describes, twice; it says what the doc shows and exits 1."""
    pytest.importorskip("distributed", reason="the archive extra")
    c = _shown_after("test_archive_runs_as_the_doc_shows")
    _league(tmp_path)
    first, again = _text_blocks_after(c.doc, c.line, 2)
    for shown in (first, again):
        r = run(c.text, tmp_path)
        assert r.returncode == 1, f"exit {r.returncode}\n{r.stderr}"
        bad = output_mismatch(shown.lines, r.stdout + r.stderr)
        assert bad is None, bad


# ---------------------------------------------------------------- every block read, every command covered

def test_every_block_is_read_and_every_command_covered():
    kinds = Counter(kind(b) for b in ALL_BLOCKS)
    assert kinds["console"] >= 4 and kinds["commands"] >= 40 and kinds["text"] >= 10, kinds
    for b in ALL_BLOCKS:                       # no command hides in a block read as text
        if kind(b) == "text":
            assert not any(COMMAND.match(ln) or ln.startswith("$ ") for ln in b.lines), f"{b.doc}:{b.line}"
    ways = Counter(way(c) for c in ALL)
    assert set(ways) == {"run", "args", "synopsis", "listed", "shown-after", "assignment"}, ways
    assert ways["run"] >= 15 and ways["args"] >= 80, ways
    texts = [c.text for c in ALL]
    for prefix in ARGS_ONLY:                   # no stale entry
        assert any(t.startswith(prefix) for t in texts), prefix
    assert set(SHOWN_AFTER) <= {(c.doc, c.text) for c in ALL}
    for c in ALL:                              # an assignment is used by a later command of its block
        if way(c) == "assignment":
            name = c.text.split("=")[0]
            assert any(f"${name}" in d.text for d in ALL if d.block == c.block and d.line > c.line), c.id
    for c in ALL:                              # a script the docs run has a parser to check them with
        if c.text.startswith("python -m scripts."):
            assert hasattr(importlib.import_module(_words(c.text)[2]), "build_parser"), c.id


def test_the_output_comparison_can_fail():
    shown = ["Hand: 1m", "…", "Total: 8 分", "Audit: no violation found"]
    assert output_mismatch(shown, "Hand: 1m\nx\ny\nTotal:  8 分\nAudit: no violation found\n") is None
    assert output_mismatch(shown, "Hand: 2m\nTotal: 8 分\nAudit: no violation found\n")            # first line
    assert output_mismatch(shown, "Hand: 1m\nTotal: 9 分\nAudit: no violation found\n")            # a figure
    assert output_mismatch(shown, "Hand: 1m\nTotal: 8 分\nAudit: no violation found\nmore\n")      # an end
    assert output_mismatch(["a 95 ms b"], "a 12 ms b") is None and output_mismatch(["a 95 ms b"], "a 12 s b")
    said = dict(claims("花龙 8 单钓将 1: 17 分 (without flowers 17), no 七对"))
    out = ("  花龙       Mixed Straight   8     =   8 分\n  单钓将  Single Wait  1  =  1 分\n"
           "Total: 17 分 (without flowers 17)\n")
    assert set(said) == {"花龙 8", "单钓将 1", "no 七对", "17 分", "without flowers 17"}
    assert all(test(out) for test in said.values())
    assert not said["花龙 8"](out.replace("   8     =", "   6     =")) and not said["no 七对"](out + "  七对  x 24 =")
