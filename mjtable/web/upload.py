"""A multipart/form-data upload read in chunks, with every limit checked as the bytes come.

Starlette's own form parser keeps no limit on a file part, and spools it to the system's temporary folder; here
the body is counted chunk by chunk and refused the moment it passes the limit (a body without Content-Length
too), the text fields are kept in memory (a few, each short), and the one file part, ``photo``, is held in a
SpooledTemporaryFile: in memory up to SPOOL bytes, past that in a file of the server's own temporary folder,
deleted when the request is done (the folder itself goes when the server stops).
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from typing import Optional

from python_multipart.multipart import MultipartParser, parse_options_header

from mjtable.errors import InputError, MjtableError, UsageError

SPOOL = 1 << 20               # bytes of a photo kept in memory before it goes to the temporary folder
MAX_FIELDS = 32               # text fields in one upload
MAX_FIELD_BYTES = 1024        # bytes of one text field
OVERHEAD = 64 << 10           # bytes of a body beyond the photo: boundaries, part headers, the text fields


class TooLarge(MjtableError):
    """A request body over its limit (HTTP 413)."""
    exit_code = 3


class FormError(UsageError):
    """A multipart body whose fields are not what the endpoint takes (HTTP 422)."""


class BrokenUpload(InputError):
    """A body that is not valid multipart/form-data (HTTP 400)."""


@dataclass
class Upload:
    fields: dict[str, str] = field(default_factory=dict)
    photo: Optional[tempfile.SpooledTemporaryFile] = None
    photo_size: int = 0
    filename: str = ""

    def photo_bytes(self) -> bytes:
        """The photo's bytes (read once, in the worker thread: at most the upload limit)."""
        if self.photo is None:
            return b""
        self.photo.seek(0)
        return self.photo.read()

    def close(self) -> None:
        if self.photo is not None:
            self.photo.close()               # a spooled file on disk is deleted with it
            self.photo = None


def _mb(n: int) -> str:
    return f"{n / (1 << 20):.3g} MB"


class _Reader:
    """python-multipart's push parser, fed chunk by chunk, building an Upload."""

    def __init__(self, boundary: bytes, limit: int, file_field: str, tmpdir: Optional[str]):
        self.limit, self.file_field, self.tmpdir = limit, file_field, tmpdir
        self.up = Upload()
        self.headers: dict[bytes, bytes] = {}
        self.hname = self.hvalue = b""
        self.name: Optional[str] = None
        self.is_file = False
        self.buf = bytearray()
        self.parser = MultipartParser(boundary, {
            "on_part_begin": self._part_begin, "on_header_field": self._header_field,
            "on_header_value": self._header_value, "on_header_end": self._header_end,
            "on_headers_finished": self._headers_finished, "on_part_data": self._part_data,
            "on_part_end": self._part_end, "on_end": self._end})
        self.ended = False                      # the closing boundary was read

    def _part_begin(self) -> None:
        self.headers, self.name, self.is_file, self.buf = {}, None, False, bytearray()

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self.hname += data[start:end]

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        self.hvalue += data[start:end]

    def _header_end(self) -> None:
        self.headers[self.hname.lower()] = self.hvalue
        self.hname = self.hvalue = b""

    def _headers_finished(self) -> None:
        disp, opts = parse_options_header(self.headers.get(b"content-disposition"))
        if disp != b"form-data" or b"name" not in opts:
            raise BrokenUpload("a multipart part without a form-data name")
        self.name = opts[b"name"].decode("utf-8", "replace")
        self.is_file = b"filename" in opts
        if self.is_file:
            if self.name != self.file_field:
                raise FormError(f"unexpected file field {self.name!r}: send the photo as {self.file_field!r}")
            if self.up.photo is not None:
                raise FormError(f"more than one {self.file_field!r} file")
            self.up.filename = opts[b"filename"].decode("utf-8", "replace")
            self.up.photo = tempfile.SpooledTemporaryFile(max_size=SPOOL, dir=self.tmpdir)
        elif len(self.up.fields) >= MAX_FIELDS:
            raise FormError(f"more than {MAX_FIELDS} form fields")

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        n = end - start
        if self.is_file:
            self.up.photo_size += n
            if self.up.photo_size > self.limit:
                raise TooLarge(f"upload larger than {_mb(self.limit)}")
            self.up.photo.write(data[start:end])
        else:
            if len(self.buf) + n > MAX_FIELD_BYTES:
                raise FormError(f"form field {self.name!r} longer than {MAX_FIELD_BYTES} bytes")
            self.buf += data[start:end]

    def _end(self) -> None:
        self.ended = True

    def _part_end(self) -> None:
        if not self.is_file:
            try:
                self.up.fields[self.name] = self.buf.decode("utf-8")
            except UnicodeDecodeError:
                raise FormError(f"form field {self.name!r} is not UTF-8 text") from None


async def read_upload(request, limit: int, file_field: str = "photo", tmpdir: Optional[str] = None) -> Upload:
    """The request's multipart body as an Upload; TooLarge, FormError or BrokenUpload (typed, one line each).
    The caller closes the Upload."""
    ctype, opts = parse_options_header(request.headers.get("content-type"))
    if ctype != b"multipart/form-data":
        raise FormError(f"want a multipart/form-data upload with a {file_field!r} file field")
    boundary = opts.get(b"boundary")
    if not boundary:
        raise BrokenUpload("multipart/form-data without a boundary")
    most = limit + OVERHEAD
    size = request.headers.get("content-length")
    if size is not None and size.strip().isdigit() and int(size) > most:
        raise TooLarge(f"upload larger than {_mb(limit)}")
    reader = _Reader(boundary, limit, file_field, tmpdir)
    seen = 0
    try:
        async for chunk in request.stream():
            seen += len(chunk)
            if seen > most:
                raise TooLarge(f"upload larger than {_mb(limit)}")
            if chunk:
                reader.parser.write(chunk)
        reader.parser.finalize()
        if not reader.ended:                # a photo cut short would decode as a part of the photo, or not at all
            raise BrokenUpload("the multipart body ends before its closing boundary: the upload was cut short")
    except MjtableError:
        reader.up.close()
        raise
    except Exception as e:                  # python-multipart's parse errors, a client gone mid-body
        reader.up.close()
        raise BrokenUpload(f"cannot read the multipart body: {type(e).__name__}: {e}".splitlines()[0]) from None
    return reader.up
