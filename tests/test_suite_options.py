"""The suite's own option: --no-skips fails a run in which any test was skipped (the README's test command)."""
import subprocess
import sys
from pathlib import Path


def _run(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, str(folder)],
                          cwd=folder, capture_output=True, text=True, timeout=120)


def test_no_skips_fails_a_run_with_a_skipped_test(tmp_path):
    (tmp_path / "conftest.py").write_text(Path(__file__).with_name("conftest.py").read_text())
    (tmp_path / "test_x.py").write_text("import pytest\n\ndef test_a():\n    pass\n\n"
                                        "def test_b():\n    pytest.skip('no chromium')\n")
    assert _run(tmp_path).returncode == 0
    strict = _run(tmp_path, "--no-skips")
    assert strict.returncode == 1 and "1 skipped" in strict.stdout and "--no-skips" in strict.stdout
    (tmp_path / "test_x.py").write_text("def test_a():\n    pass\n")
    assert _run(tmp_path, "--no-skips").returncode == 0
