"""The Python API: mjtable.read and mjtable.score call the pipeline and raise typed errors."""
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

import mjtable
from mjtable import errors

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_version_is_the_installed_one():
    from importlib.metadata import version
    assert mjtable.__version__ == version("mjtable")


def test_score_a_hand():
    r = mjtable.score("123m456p789s1z [555z^] +1z", seat_wind="E")
    assert r.result.is_win and r.hand.winning_tile == 27
    d = r.to_dict()
    assert d["result"]["total"] == r.result.total and d["rules"] == "mcr"


@pytest.mark.parametrize("how", ["api", "cli"])
def test_a_typed_hand_loads_no_numpy_opencv_or_vision(how):
    """mjtable.score (and `mjtable score`) is the scoring package and the pipeline's notation path: no numpy,
    OpenCV, onnxruntime or vision code (mjtable.vision) is imported for it."""
    run = {"api": "r = mjtable.score('123m456p789s1z [555z^] +1z', seat_wind='E')\n"
                  "assert r.result.total == 17, r.result.total\n",
           "cli": "from mjtable import cli\n"
                  "assert cli.main(['score', '123m456p789s1z [555z^] +1z', '--json']) == 0\n"}[how]
    code = ("import sys, mjtable\n" + run +
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'cv2', 'onnxruntime')\n"
            "               or m == 'mjtable.vision' or m.startswith('mjtable.vision.'))\n"
            "print(heavy)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "[]", p.stdout


def test_the_old_pipeline_name_is_the_same_module_with_a_warning():
    """mjtable.vision.pipeline (documented before the pipeline moved to mjtable.pipeline) still imports for the
    0.2 release: the same module object, with a DeprecationWarning at the import."""
    code = ("import warnings\n"
            "warnings.simplefilter('error', DeprecationWarning)\n"
            "try:\n"
            "    import mjtable.vision.pipeline\n"
            "except DeprecationWarning as e:\n"
            "    print('warned:', e)\n"
            "warnings.simplefilter('ignore', DeprecationWarning)\n"
            "from mjtable.vision.pipeline import Reading, locate\n"
            "from mjtable import pipeline\n"
            "assert Reading is pipeline.Reading and locate is pipeline.locate\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("warned: mjtable.vision.pipeline moved to mjtable.pipeline"), p.stdout


def test_score_refusals_carry_exit_codes():
    with pytest.raises(errors.BadHandError) as e:
        mjtable.score("123m +1z")
    assert e.value.exit_code == errors.EXIT_BAD_HAND and "wrong tile count" in str(e.value)
    with pytest.raises(errors.UsageError):
        mjtable.score("123m456p789s1z [555z^] +1z", profile="nonsense")
    with pytest.raises(errors.UsageError):
        mjtable.score("123m456p789s1z [555z^] +1z", seat_wind="X")


@pytest.mark.parametrize("as_what", ["path", "bytes", "array"])
def test_read_the_bundled_photo(as_what):
    path = EXAMPLES / "phone_win.jpg"
    src = {"path": str(path), "bytes": path.read_bytes(), "array": cv2.imread(str(path))}[as_what]
    r = mjtable.read(src, seat_wind="S")
    assert r.kind == "phone" and r.result is not None and r.result.is_win and r.result.total == 8
    assert r.to_dict()["result"]["total"] == 8


def test_read_refuses_what_is_not_an_image(tmp_path):
    with pytest.raises(errors.InputError):
        mjtable.read(b"not an image")
    with pytest.raises(errors.InputError):
        mjtable.read(str(tmp_path / "missing.jpg"))


@pytest.mark.parametrize("notation", [123, b"123m456p789s1z [555z^] +1z", None, ["1m"]])
def test_score_refuses_what_is_not_notation_with_bad_hand(notation):
    with pytest.raises(errors.BadHandError, match="want a string"):
        mjtable.score(notation)


@pytest.mark.parametrize("image,error,words", [
    (123, errors.InputError, "want a file path"), (None, errors.InputError, "got NoneType"),
    ([1, 2], errors.InputError, "got list"), ("a\x00b.jpg", errors.InputError, "NUL")])
def test_read_refuses_what_is_no_image_source_in_one_line(image, error, words):
    with pytest.raises(error, match=words) as e:
        mjtable.read(image)
    assert "\n" not in str(e.value)


def test_read_refuses_what_is_no_detector():
    with pytest.raises(errors.UsageError, match="detector"):
        mjtable.read(str(EXAMPLES / "phone_win.jpg"), detector="x")
