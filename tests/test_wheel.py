"""The wheel, installed as a user installs a published package, reads a photo: it carries the runtime's models.

Builds the wheel from a copy of this checkout's sources (not in place: setuptools' build/ folder keeps modules a
former package list held, and would ship them), installs it without its dependencies in a fresh venv that borrows the
dependencies of the running one (a path in a .pth file: the running venv's own .pth files, the development
install among them, are not processed), and reads the bundled photo of a real set from another folder."""
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_the_wheel_reads_a_photo_from_a_fresh_venv(tmp_path):
    wheels, src = tmp_path / "wheels", tmp_path / "src"
    shutil.copytree(ROOT, src, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "data", "runs", "work_data", "*.egg-info", "__pycache__", "*.so"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(src)],
                   check=True, capture_output=True, timeout=600)
    (wheel,) = wheels.glob("mjtable-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "mjtable/models/tile_locator_int8.onnx" in names and "mjtable/models/view_router.onnx" in names
    assert "mjtable/models/tile_locator.onnx" not in names              # float models stay in the repository
    assert {"mjtable/web/static/index.html", "mjtable/web/static/app.js", "mjtable/cli/photo.py",
            "mjtable/archive/run.py", "mjtable/vision/locate.py"} <= set(names)   # the app's packages and files
    # the library pieces the scripts share are in it; the scripts (training, evaluation, data preparation,
    # benchmarks: `python -m scripts.NAME` from a checkout) are not, nor any file of theirs
    assert {"mjtable/vision/labels.py", "mjtable/vision/compare.py", "mjtable/datasets/camerash.py",
            "mjtable/models/graph.py"} <= set(names)
    scripts = [n for n in names if n.startswith(("mjtable/scripts/", "scripts/")) or "camerash_sources" in n]
    assert not scripts, scripts

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True,
                   capture_output=True, timeout=300)
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    (Path(site) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    where = subprocess.run([str(py), "-c", "import mjtable; print(mjtable.__file__)"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=60)
    assert where.stdout.strip().startswith(site), where.stdout + where.stderr   # the wheel's, not this checkout's
    got = subprocess.run([str(venv / "bin" / "mjtable"), str(ROOT / "examples" / "real_hand.jpg")], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, got.stderr
    assert "Total: 88 分" in got.stdout
