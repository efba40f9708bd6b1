"""Run a script of scripts/ as the docs tell: ``python -m scripts.NAME ARGS`` in the repository's root (the
scripts are not in the wheel, and no test imports one)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_script(name: str, *args, timeout: float = 600) -> subprocess.CompletedProcess:
    """The finished process of ``python -m scripts.NAME ARGS`` (text output captured)."""
    return subprocess.run([sys.executable, "-m", f"scripts.{name}", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
