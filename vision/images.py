"""Image files -> BGR arrays, refused before decoding when they cannot or should not be read.

A path must name a regular file (a FIFO or a device could block for ever) of at most MAX_FILE_BYTES; the
format and the pixel count are read from the header (Pillow reads only the header) and an image over
MAX_PIXELS is refused undecoded (a decompression bomb never reaches the decoder). A large JPEG is decoded at a
reduced scale by its own DCT scaling.
"""
from __future__ import annotations

import os
import stat
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Optional

import cv2
import numpy as np

from mjtable.errors import InputError, shown

KEEP_SIDE = 1280          # a JPEG is decoded at 1/2, 1/4 or 1/8 scale while its longer side stays at least this


class ImageError(InputError, ValueError):
    """A file that cannot be read as an image."""


MAX_PIXELS = 50_000_000          # an image over this many pixels is refused before it is decoded
MAX_FILE_BYTES = 100 << 20       # and a file over 100 MB before it is read


def load_image(path) -> np.ndarray:
    """Read an image file as a BGR uint8 array; ImageError with a readable message otherwise."""
    p = Path(path)
    why = not_a_file(p)
    if why:
        raise ImageError(f"not an image: {shown(p)} {why}")
    try:
        if p.stat().st_size > MAX_FILE_BYTES:
            raise ImageError(f"not an image: {shown(p)} is larger than {MAX_FILE_BYTES >> 20} MB")
        data = np.fromfile(str(p), dtype=np.uint8)
    except OSError as e:
        raise ImageError(f"not an image: cannot read {shown(p)} ({e.strerror or e})") from None
    return decode_image(data, shown(p))


def not_a_file(path) -> str:
    """Why ``path`` is not a regular file that can be read ("does not exist", "is a directory", "is not a
    regular file (a FIFO ...)"), or "" when it is one. A FIFO or a device could block a reader for ever."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "does not exist"
    except OSError as e:                # a name too long, a loop of links, no permission ...
        return f"cannot be read ({e.strerror or e})"
    except ValueError:                  # a NUL byte in the name
        return "cannot be read (a NUL character in its name)"
    if stat.S_ISDIR(mode):
        return "is a directory"
    if not stat.S_ISREG(mode):
        return "is not a regular file (a FIFO, a device or a socket)"
    return ""


def image_header(data: bytes) -> tuple[str, int, int]:
    """(format, width, height) from an image file's header, without decoding its pixels (Pillow reads only
    the header). ImageError for data that no known image format starts like."""
    import io
    import warnings

    from PIL import Image, UnidentifiedImageError
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as im:
                return im.format or "?", int(im.size[0]), int(im.size[1])
    except Image.DecompressionBombError:       # beyond Pillow's own limit, which is above ours
        raise ImageError(f"too large (over {2 * Image.MAX_IMAGE_PIXELS // 10**6} megapixels; at most "
                         f"{MAX_PIXELS // 10**6})") from None
    except UnidentifiedImageError:
        raise ImageError("not a readable image file (corrupt or unknown format)") from None
    except Exception as e:                     # any image plugin's parser failing on odd bytes
        raise ImageError(f"not a readable image file (corrupt: {type(e).__name__})") from None


def decode_image(data: np.ndarray, name: str = "the image") -> np.ndarray:
    """The bytes of an image file (uint8 array) -> BGR uint8 array; ImageError naming ``name`` otherwise.
    The format and the pixel count are checked from the header first: over MAX_PIXELS is refused undecoded."""
    if data.size == 0:
        raise ImageError(f"not an image: {name} is empty")
    if data.size > MAX_FILE_BYTES:
        raise ImageError(f"not an image: {name} is larger than {MAX_FILE_BYTES >> 20} MB")
    try:
        fmt, w, h = image_header(data.tobytes())
    except ImageError as e:
        raise ImageError(f"not an image: {name} is {e}") from None      # "too large ..." or "not a readable ..."
    if w * h > MAX_PIXELS:
        raise ImageError(f"not an image: {name} is too large ({w}x{h} pixels; at most {MAX_PIXELS // 10**6} "
                         f"megapixels)")
    size = jpeg_size(data[:1 << 18].tobytes())
    factor = 1
    while size is not None and factor < 8 and max(size) / (2 * factor) >= KEEP_SIDE:
        factor *= 2
    # a phone's 12 MP photo decodes in about a tenth of the time at half scale (the JPEG's own DCT scaling),
    # and its tiles stay 60+ px wide for the 64 px crops
    flag = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
            8: cv2.IMREAD_REDUCED_COLOR_8}[factor]
    with quiet_stderr():                    # libjpeg prints its warnings (a truncated file) to stderr itself
        img = cv2.imdecode(data, flag)
    if img is None or img.size == 0:
        raise ImageError(f"not an image: {name} is not a readable image file (corrupt or unknown format)")
    return img


_quiet = threading.Lock()
_quiet_users = 0
_saved_fd = -1


@contextmanager
def quiet_stderr():
    """Send what native code writes to the process's stderr (file descriptor 2) to /dev/null meanwhile: libjpeg
    writes its warnings there itself, past OpenCV's log level. Threads may overlap: the last one out restores it."""
    global _quiet_users, _saved_fd
    with _quiet:
        if _quiet_users == 0:
            try:
                sys.stderr.flush()
                saved = os.dup(2)
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 2)
                os.close(null)
                _saved_fd = saved
            except (OSError, ValueError, AttributeError):     # no stderr to quiet
                _saved_fd = -1
        _quiet_users += 1
    try:
        yield
    finally:
        with _quiet:
            _quiet_users -= 1
            if _quiet_users == 0 and _saved_fd >= 0:
                os.dup2(_saved_fd, 2)
                os.close(_saved_fd)
                _saved_fd = -1


def jpeg_size(head: bytes) -> Optional[tuple[int, int]]:
    """(width, height) from a JPEG's frame header (SOFn) in its first bytes; None if not a JPEG or not found."""
    if head[:2] != b"\xff\xd8":
        return None
    i, n = 2, len(head)
    while i + 9 < n:
        if head[i] != 0xFF:
            return None
        marker = head[i + 1]
        if marker == 0xFF:                      # fill byte
            i += 1
            continue
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = int.from_bytes(head[i + 5:i + 7], "big"), int.from_bytes(head[i + 7:i + 9], "big")
            return (w, h) if w and h else None
        if marker == 0xD8 or 0xD0 <= marker <= 0xD7 or marker == 0x01:   # no length field
            i += 2
            continue
        i += 2 + int.from_bytes(head[i + 2:i + 4], "big")
    return None


STRETCH_LIMIT = 4.5       # an image whose detail runs this many times finer one way than the other was stretched
STRETCH_SIDE = 512        # a larger image is measured along every n-th row and column (n = side / this)


def stretch(img: np.ndarray) -> float:
    """How many times wider than it should be the image's content is: the mean step in brightness between
    vertical neighbours over that between horizontal ones (below 1: stretched upright). A copy stretched k times
    one way measures about k times the original. On 3,250 unstretched images it stays within 1/3.2-3.2 for the
    1,320 photos and 1/3.9-3.9 for rendered scenes with motion blur; the 32 strips of tiles that an export
    stretched to a square (boxes 9-12 times wider than tall, or 5-10 times taller than wide) measure 5.4 or
    more either way."""
    h, w = img.shape[:2]
    if w < 2 or h < 2:
        return 1.0
    # steps between neighbouring pixels at full resolution (a downscaled copy would not keep the ratio), along
    # every n-th row and every n-th column of a large image
    rows = cv2.cvtColor(np.ascontiguousarray(img[::max(1, h // STRETCH_SIDE)]), cv2.COLOR_BGR2GRAY)
    cols = cv2.cvtColor(np.ascontiguousarray(img[:, ::max(1, w // STRETCH_SIDE)]), cv2.COLOR_BGR2GRAY)
    across = cv2.mean(cv2.absdiff(rows[:, 1:], rows[:, :-1]))[0]
    down = cv2.mean(cv2.absdiff(cols[1:], cols[:-1]))[0]
    if across <= 1e-6 or down <= 1e-6:        # a flat image or a single row: nothing to measure
        return 1.0
    return down / across


def unstretch(img: np.ndarray) -> tuple[np.ndarray, float, float]:
    """``(image, sx, sy)``: an image stretched more than STRETCH_LIMIT times one way (a photo resized to a square
    without keeping its aspect ratio) squeezed back along that axis, and the scale applied to each axis; the
    image itself and 1, 1 otherwise. Box coordinates in the result divided by sx, sy are the input's."""
    s = stretch(img)
    if 1 / STRETCH_LIMIT <= s <= STRETCH_LIMIT:
        return img, 1.0, 1.0
    h, w = img.shape[:2]
    sx, sy = (1 / s, 1.0) if s > 1 else (1.0, s)
    size = (max(8, round(w * sx)), max(8, round(h * sy)))
    return cv2.resize(img, size, interpolation=cv2.INTER_AREA), size[0] / w, size[1] / h
