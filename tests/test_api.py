"""The Python API: mjtable.read and mjtable.score call the pipeline and raise typed errors."""
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
