"""mjtable.system_files: files from Debian packages are found in one place, and a missing one says which
package to install."""
import pytest

from mjtable import system_files as sf


def test_every_listed_file_is_installed():
    """The README's test command installs every package listed; each file must then be found."""
    missing = [name for name in sf.FILES if sf.find(name) is None]
    assert not missing, f"not installed: {missing} (run the README's test command)"


def test_missing_file_names_its_package(monkeypatch):
    monkeypatch.setitem(sf.FILES, "kde_tilesets",
                        sf.SystemFile("KDE Mahjongg tile sets", "kdegames-mahjongg-data-kf5", ("/nonexistent/x",)))
    assert sf.find("kde_tilesets") is None
    with pytest.raises(sf.SystemFileMissing) as e:
        sf.require("kde_tilesets")
    msg = str(e.value)
    assert "apt-get install kdegames-mahjongg-data-kf5" in msg and "\n" not in msg


def test_first_existing_candidate_wins(tmp_path, monkeypatch):
    (tmp_path / "b.ttf").write_bytes(b"x")
    monkeypatch.setitem(sf.FILES, "cjk_font", sf.SystemFile("a CJK font", "fonts-noto-cjk",
                                                            (str(tmp_path / "a.ttf"), str(tmp_path / "b.ttf"))))
    assert sf.require("cjk_font") == tmp_path / "b.ttf"


def test_readme_test_command_installs_every_package():
    from pathlib import Path
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text(encoding="utf-8")
    command = next(line for line in ci.splitlines() if "pytest" in line)
    assert command in readme, ".ci/run must run exactly the README's test command"
    for package in sf.PACKAGES:
        assert package in command.split(), f"the test command does not install {package}"
