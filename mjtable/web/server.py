"""The app on uvicorn, for ``mjtable serve``: ``on_start`` is called once the server listens (so that where to
reach it is said then, and only then), and an address it cannot listen on (a port in use, a name that does not
resolve) is a one-line usage error instead of uvicorn's log line and exit status."""
from __future__ import annotations

import logging
from typing import Callable, Optional

import uvicorn

from mjtable.errors import UsageError


def url(host: str, port: int) -> str:
    """``http://HOST:PORT/``, an IPv6 address in brackets."""
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, on_start: Optional[Callable[[], None]]):
        super().__init__(config)
        self.on_start = on_start

    async def startup(self, sockets=None) -> None:
        await super().startup(sockets=sockets)
        if self.started and self.on_start is not None:
            self.on_start()


class _BindError(logging.Filter):
    """Takes uvicorn's record of an address it could not listen on (the OSError itself) off its log, keeping it."""

    def __init__(self):
        super().__init__()
        self.error: Optional[OSError] = None

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, OSError):
            self.error = record.msg
            return False
        return True


def run(app, host: str, port: int, on_start: Optional[Callable[[], None]] = None) -> None:
    """Serve ``app`` on ``host``:``port`` until interrupted."""
    server = _Server(uvicorn.Config(app, host=host, port=port, log_level="warning", server_header=False), on_start)
    caught = _BindError()
    log = logging.getLogger("uvicorn.error")
    log.addFilter(caught)
    try:
        server.run()
    except SystemExit:
        if server.started or caught.error is None:
            raise
        why = (caught.error.strerror or str(caught.error)).rsplit(": ", 1)[-1]     # asyncio: "... on (addr): why"
        raise UsageError(f"cannot listen on {host or '*'} port {port}: {why} (--host and --port choose another)"
                         ) from None
    finally:
        log.removeFilter(caught)
