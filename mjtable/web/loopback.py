"""The web app on a real loopback server, and Debian's headless Chromium driving it (selenium): for the browser
tests, the docs' screenshots (scripts/serve_screenshots.py) and the serve benchmarks (scripts/load_serve.py,
bench_serve_memory.py).

    with served(create_app()) as url, chromium(420, 900) as b:
        b.get(url + "/")
        wait_for(lambda: b.find_element(By.ID, "total").text, what="the total")

``served`` runs the app in a thread of this process; ``start_server`` starts ``mjtable serve`` as a process of its
own (its memory measured with ``peak_mb``). The browser needs the Debian packages chromium and chromium-driver and
the pip package selenium (the test extra); a missing one fails with a line saying what to install.
"""
from __future__ import annotations

import contextlib
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Optional

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage")


@contextlib.contextmanager
def served(app):
    """The app on a real uvicorn server on a free loopback port, in a thread: yields its URL."""
    import uvicorn
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    assert server.started, "the server did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        t.join(10)


@contextlib.contextmanager
def chromium(width: int = 420, height: int = 900, flags: tuple = ()):
    """A headless Chromium of this window size with a fresh profile, driven by selenium; ``flags`` are added."""
    missing = [p for p in (CHROMIUM, DRIVER) if not Path(p).exists()]
    assert not missing, (f"missing {', '.join(missing)}: install Debian's browser with "
                         "`apt-get install -y --no-install-recommends chromium chromium-driver`")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as e:
        raise AssertionError(f"selenium is needed for the browser (pip install -e '.[test]'): {e}") from None
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="mjtable-chromium-")
    for a in FLAGS + tuple(flags) + (f"--window-size={width},{height}", f"--user-data-dir={profile}"):
        opts.add_argument(a)
    d = webdriver.Chrome(service=Service(DRIVER), options=opts)
    try:
        yield d
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)


def wait_for(pred, timeout: float = 30.0, what: str = "the page"):
    """pred()'s first true value, tried every 0.1 s; AssertionError naming ``what`` after ``timeout`` s."""
    end = time.time() + timeout
    last = None
    while time.time() < end:
        try:
            got = pred()
        except Exception as e:                 # not there yet (stale or missing element)
            got, last = None, e
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}" + (f" ({last})" if last else ""))


def peak_mb(pid: int) -> Optional[float]:
    """The peak resident memory of a process in MB (VmHWM, Linux), or None."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    m = re.search(r"VmHWM:\s+(\d+)", text)
    return int(m.group(1)) / 1024 if m else None


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(args: list[str], stderr=None) -> tuple[subprocess.Popen, str]:
    """``mjtable serve`` on a free loopback port, once it answers: (its process, its URL). ``stderr``: where its
    log goes (default: this process's stderr)."""
    import httpx
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "mjtable.cli", "serve", "--port", str(port), *args],
                            stderr=stderr)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}")
        time.sleep(0.1)
    proc.terminate()
    raise SystemExit("the server did not start")
