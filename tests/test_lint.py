"""Issue #44: ruff (lint on the repository, format on scoring/) and mypy on scoring/, as configured in
pyproject.toml. They run here so that the README's test command (and .ci/run) runs them."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_check():
    r = _run("ruff", "check", "--no-cache", ".")
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_format_scoring():
    r = _run("ruff", "format", "--no-cache", "--check", "scoring/")
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_scoring():
    r = _run("mypy", "scoring/")
    assert r.returncode == 0, r.stdout + r.stderr
