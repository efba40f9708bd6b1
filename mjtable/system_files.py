"""Files that come from Debian packages (tile art, fonts), found in one place.

Everything the project reads from outside the repository is named here, with the package that installs it,
so that a missing file fails with one clear line instead of a traceback deep in a renderer. The README's test
command installs every package listed here (``apt-get install``).

    path = require("kde_tilesets")      # Path, or SystemFileMissing naming the package to install
    path = find("cjk_font")             # Path, or None (for optional files such as annotation fonts)
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional


@dataclass(frozen=True)
class SystemFile:
    what: str                 # what it is, for the message
    package: str              # the Debian package that installs it
    candidates: tuple[str, ...]   # where it may lie; the first that exists is used


FILES: dict[str, SystemFile] = {
    "kde_tilesets": SystemFile("KDE Mahjongg tile sets", "kdegames-mahjongg-data-kf5",
                               ("/usr/share/kmahjongglib/tilesets",)),
    "gnome_smooth": SystemFile("GNOME Mahjongg tile art", "gnome-mahjongg",
                               ("/usr/share/gnome-mahjongg/themes/smooth.png",)),
    "xmahjongg_real": SystemFile("xmahjongg scanned tile set", "xmahjongg",
                                 ("/usr/share/games/xmahjongg/tiles/real.gif",)),
    "xmahjongg_felt": SystemFile("xmahjongg table backgrounds", "xmahjongg",
                                 ("/usr/share/games/xmahjongg/backgrounds/default.gif",)),
    "xmahjongg_green": SystemFile("xmahjongg table backgrounds", "xmahjongg",
                                  ("/usr/share/games/xmahjongg/backgrounds/green.gif",)),
    "symbola_font": SystemFile("Symbola font (mahjong glyphs)", "fonts-symbola",
                               ("/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf",)),
    "noto_symbols_font": SystemFile("Noto Sans Symbols 2 font (mahjong glyphs)", "fonts-noto-core",
                                    ("/usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf",)),
    "cjk_font": SystemFile("a CJK font", "fonts-noto-cjk",
                           ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
                            "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
                            "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
                            "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
                            "/usr/share/fonts/truetype/arphic/uming.ttc")),
    # the CJK fonts the scene generator draws tile faces with (mjtable.datasets.fontfaces)
    "noto_sans_cjk": SystemFile("Noto Sans CJK", "fonts-noto-cjk",
                                ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",)),
    "noto_sans_cjk_bold": SystemFile("Noto Sans CJK Bold", "fonts-noto-cjk",
                                     ("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",)),
    "noto_serif_cjk": SystemFile("Noto Serif CJK", "fonts-noto-cjk",
                                 ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",)),
    "noto_serif_cjk_bold": SystemFile("Noto Serif CJK Bold", "fonts-noto-cjk",
                                      ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc",)),
    "wqy_microhei": SystemFile("WenQuanYi Micro Hei", "fonts-wqy-microhei",
                               ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",)),
    "wqy_zenhei": SystemFile("WenQuanYi Zen Hei", "fonts-wqy-zenhei",
                             ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",)),
    "arphic_ukai": SystemFile("AR PL UKai", "fonts-arphic-ukai", ("/usr/share/fonts/truetype/arphic/ukai.ttc",)),
    "arphic_uming": SystemFile("AR PL UMing", "fonts-arphic-uming", ("/usr/share/fonts/truetype/arphic/uming.ttc",)),
    "latin_font": SystemFile("a Latin font", "fonts-dejavu-core",
                             ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                              "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
                              "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf")),
}

# The Debian packages the tests and the scene generator need (the README's test command installs them).
PACKAGES = tuple(sorted({f.package for f in FILES.values()}))


class SystemFileMissing(FileNotFoundError):
    """A file from a Debian package is not installed; the message names the package."""


def find(name: str) -> Optional[Path]:
    """The installed file or folder called ``name`` in FILES, or None."""
    for c in FILES[name].candidates:
        p = Path(c)
        if p.exists():
            return p
    return None


def require(name: str) -> Path:
    """The installed file or folder called ``name``; SystemFileMissing (one line naming the package) if absent."""
    p = find(name)
    if p is None:
        f = FILES[name]
        raise SystemFileMissing(f"{f.what} not found ({f.candidates[0]}): install the Debian package "
                                f"{f.package} (apt-get install {f.package})")
    return p


def shared(*parts: str) -> Path:
    """A path in the project's shared folder (rule texts, training data) that lies beside the repository
    (``../shared``), or under $MJTABLE_SHARED. SystemFileMissing if it is not there."""
    import os
    base = Path(os.environ.get("MJTABLE_SHARED") or Path(__file__).resolve().parents[1].parent / "shared")
    p = base.joinpath(*parts)
    if not p.exists():
        raise SystemFileMissing(f"{p} not found: the shared folder (rule texts, data) lies beside the repository "
                                f"as ../shared, or set MJTABLE_SHARED")
    return p
