"""Output files: never written over an input of the same command, only as a new or a regular file; a refused output
(exit 8, one line) is left as it was and nothing else is written."""
import os
import shutil
from pathlib import Path

import pytest

from mjtable import errors, outputs
from mjtable import cli

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "examples" / "phone_win.jpg"


def _one_line(err: str) -> bool:
    return err.count("\n") == 1 and err.startswith("mjtable: error:") and "Traceback" not in err


def _refused(argv, capsys, *words) -> str:
    code = cli.main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert code == errors.EXIT_OUTPUT, err
    assert _one_line(err) and all(w in err for w in words), err
    return err


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: (p.read_bytes() if p.is_file() and not p.is_fifo() else b"") for p in folder.iterdir()}


@pytest.fixture
def photo(tmp_path) -> Path:
    p = tmp_path / "hand.png"          # the photo is a PNG: an audit report's image would be hand.png too
    shutil.copyfile(PHOTO, tmp_path / "hand.jpg")
    import cv2
    cv2.imwrite(str(p), cv2.imread(str(tmp_path / "hand.jpg")))
    return p


def test_audit_report_image_never_replaces_the_photo(photo, capsys):
    before = _files(photo.parent)
    _refused(["audit", photo, "--out", photo.with_suffix(".md")], capsys, "hand.png", "input")
    assert _files(photo.parent) == before                      # the photo as it was, and no report


def test_annotated_photo_never_replaces_an_input(photo, capsys):
    dets = photo.parent / "dets.json"
    dets.write_text('[{"box": [0, 0, 30, 40], "kind": 3}]')
    before = _files(photo.parent)
    _refused([photo, "--annotate", photo], capsys, "input")
    _refused([photo, "--detections", dets, "--annotate", dets], capsys, "input")
    link = photo.parent / "other.png"                          # the same file by another name
    os.link(photo, link)
    _refused([photo, "--annotate", link], capsys, "input")
    assert {k: v for k, v in _files(photo.parent).items() if k != "other.png"} == before


def test_two_outputs_of_one_command_are_refused(photo, capsys):
    out = photo.parent / "report.png"                          # its md report and the image beside it
    _refused(["audit", photo, "--out", out], capsys, "another output")
    assert not out.exists()


@pytest.mark.parametrize("make,what", [
    (lambda p: os.mkfifo(p), "a FIFO"),
    (lambda p: p.mkdir(), "a folder"),
    (lambda p: p.symlink_to(p.parent / "precious.txt"), "a symbolic link"),
])
@pytest.mark.parametrize("command", ["annotate", "audit"])
def test_special_outputs_are_refused_and_left_as_they_were(tmp_path, capsys, make, what, command):
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    target = tmp_path / "out.png"
    make(target)
    before = _files(tmp_path)
    kind = os.lstat(target).st_mode
    argv = [PHOTO, "--annotate", target] if command == "annotate" else ["audit", PHOTO, "--out", target]
    _refused(argv, capsys, what, "out.png")
    assert os.lstat(target).st_mode == kind and _files(tmp_path) == before      # no out.png.png, no temporary file
    assert precious.read_text() == "keep me"


def test_a_device_is_refused(capsys):
    assert os.path.exists(os.devnull)
    mode = os.stat(os.devnull).st_mode
    _refused([PHOTO, "--annotate", os.devnull], capsys, "a device")
    assert os.stat(os.devnull).st_mode == mode


def test_audit_into_a_folder_leaves_nothing_behind(tmp_path, capsys):
    folder = tmp_path / "reports"
    folder.mkdir()
    _refused(["audit", PHOTO, "--out", folder], capsys, "a folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"] and not list(folder.iterdir())


def test_the_archive_writes_through_the_same_checks(tmp_path):
    pytest.importorskip("pyarrow")
    from mjtable.archive import items as archive
    out = archive.prepare_out(tmp_path / "out")
    precious = tmp_path / "precious.json"
    precious.write_text("keep me")
    (out / "summary.json").symlink_to(precious)
    with pytest.raises(errors.OutputError, match="symbolic link"):
        archive.combine(out)
    assert precious.read_text() == "keep me" and (out / "summary.json").is_symlink()


def test_write_atomic_refuses_before_writing(tmp_path):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with pytest.raises(errors.OutputError, match="FIFO"):
        outputs.write_atomic(fifo, b"x")
    with pytest.raises(errors.OutputError, match="does not exist"):
        outputs.write_atomic(tmp_path / "no" / "x.png", b"x")
    outputs.write_atomic(tmp_path / "new.txt", b"x")
    outputs.write_atomic(tmp_path / "new.txt", lambda f: f.write(b"yz"), fsync=True)   # a regular file: replaced
    assert (tmp_path / "new.txt").read_bytes() == b"yz"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f", "new.txt"]


@pytest.mark.parametrize("name", ["out.png/", "newdir/", ""])
def test_an_output_named_as_a_folder_or_empty_is_refused(tmp_path, capsys, name):
    """Path() drops a trailing separator: "out.png/" had written over the file out.png, and "newdir/" had made a
    file called newdir."""
    (tmp_path / "out.png").write_bytes(b"keep me")
    os.chmod(tmp_path / "out.png", 0o600)
    before = _files(tmp_path)
    target = f"{tmp_path}/{name}" if name else ""
    _refused([PHOTO, "--detections", ROOT / "examples" / "phone_win.json", "--annotate", target], capsys,
             "folder" if name else "file name")
    _refused(["audit", PHOTO, "--detections", ROOT / "examples" / "phone_win.json", "--out", target], capsys)
    assert _files(tmp_path) == before and (tmp_path / "out.png").stat().st_mode & 0o777 == 0o600


def test_an_output_name_too_long_for_its_temporary_file_leaves_nothing(tmp_path, capsys):
    """The report's name fits the folder but its temporary file's does not: refused before the image beside it is
    written (the image had been left behind)."""
    out = tmp_path / ("b" * 237 + ".markdown")
    _refused(["audit", PHOTO, "--detections", ROOT / "examples" / "phone_win.json", "--out", out], capsys,
             "too long")
    assert list(tmp_path.iterdir()) == []


def test_a_report_that_fails_to_be_written_takes_its_new_image_with_it(tmp_path, capsys, monkeypatch):
    from mjtable.cli import audit
    real = audit.write_atomic

    def failing(path, data, inputs=()):
        if str(path).endswith(".md"):
            raise errors.OutputError(f"cannot write {path}: No space left on device")
        real(path, data, inputs)
    monkeypatch.setattr(audit, "write_atomic", failing)
    _refused(["audit", PHOTO, "--detections", ROOT / "examples" / "phone_win.json", "--out", tmp_path / "r.md"],
             capsys, "No space")
    assert list(tmp_path.iterdir()) == []


def test_no_output_is_written_over_a_model_the_command_reads(tmp_path):
    """The detector's models are inputs of a photo command too ($MJTABLE_MODELS, or the package's own)."""
    import subprocess
    import sys
    models = tmp_path / "models"
    models.mkdir()
    (models / "tile_locator.onnx").write_bytes(b"a model")
    r = subprocess.run([sys.executable, "-m", "mjtable.cli", str(PHOTO), "--detections",
                        str(ROOT / "examples" / "phone_win.json"), "--annotate", str(models / "tile_locator.onnx")],
                       env={**os.environ, "MJTABLE_MODELS": str(models)}, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == errors.EXIT_OUTPUT and "input of this command" in r.stderr, r.stderr
    assert (models / "tile_locator.onnx").read_bytes() == b"a model"


def test_the_archive_refuses_a_parts_link_and_its_outputs_before_reading(tmp_path):
    pytest.importorskip("pyarrow")
    from mjtable.archive import items as archive
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "parts").symlink_to(elsewhere)
    with pytest.raises(errors.OutputError, match="symbolic link"):
        archive.prepare_out(out)
    (out / "parts").unlink()
    (out / "hands.parquet").symlink_to(tmp_path / "victim")
    with pytest.raises(errors.OutputError, match="symbolic link"):
        archive.prepare_out(out)
    assert list(elsewhere.iterdir()) == [] and not (tmp_path / "victim").exists()
