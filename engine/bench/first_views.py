"""First-view seconds of every page and preset on a fresh server, cold and warm.

    python -m engine.bench --pages

Starts ``streamlit run app.py`` twice on a free port of 127.0.0.1, each on a fresh, empty run cache
(:mod:`engine.app.serving.warm_cache`):

* **cold**: no start-up fill: each view computes its runs when it is opened;
* **warm**: the start-up fill runs first (it starts with the server's first visit, here a Home
  page opened by the bench), and the views are opened once it has logged "done".

Each view of :func:`engine.app.page_content.first_views.first_views` is opened in a new session
through Streamlit's agent API (``server.enableAgentApi``: the real server, no browser), and
timed until the page has drawn its finished run: the server's log line "run <page>:
session-N done after ..." (the page's first draw of it), or the first answer for a view that
starts no run. Browser rendering is not included (the browser test times that). A view counts
as served from the cache when its log line says so. Target: every warm first view within 5 s.
"""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from engine.app.page_content.first_views import first_views

TARGET_SECONDS = 5.0
REPO_ROOT = Path(__file__).resolve().parents[2]
VIEW_TIMEOUT = 900.0
FILL_TIMEOUT = 3600.0
# The registered pages, in app.py's order (app.py imports streamlit; the engine reads its file list).
_PAGE_RE = re.compile(r'^\s*\("(pages/[a-z_]+\.py)",', re.M)


def registered_pages() -> list[str]:
    return _PAGE_RE.findall((REPO_ROOT / "app.py").read_text(encoding="utf-8"))


def url_path(page: str) -> str:
    """The page's URL path as st.navigation names it ("" for the first page, Home)."""
    first = registered_pages()[0]
    return "" if page == first else Path(page).stem


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``streamlit run app.py`` with the agent API on, its log in a file; a context manager."""

    def __init__(self, cache_dir: str, warm: bool) -> None:
        self.port, self.cache_dir, self.warm = _free_port(), cache_dir, warm
        self.log_path = Path(cache_dir) / "server.log"

    def __enter__(self) -> "Server":
        cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
               "--server.port", str(self.port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats",
               "false", "--server.fileWatcherType", "none", "--server.enableAgentApi", "true",
               "--server.agentWaitTimeout", "600"]
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "RPO_RUN_CACHE": str(Path(self.cache_dir) / "runs"),
               "RPO_WARM": "1" if self.warm else "0", "RPO_REAL_DATA_CACHE": str(Path(self.cache_dir) / "cells")}
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(cmd, cwd=REPO_ROOT, stdout=self._log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_stcore/health", timeout=1) as r:
                    if r.read().strip() == b"ok":
                        return self
            except OSError:
                time.sleep(0.2)
        raise TimeoutError("the server did not answer its health check in 60 s")

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self._log.close()

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def interact(self, body: dict) -> dict:
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}/_stcore/agent/interact",
                                     data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=VIEW_TIMEOUT) as r:
            return json.loads(r.read())

    def open_view(self, view: dict) -> tuple[float, str]:
        """Seconds until the view is drawn, and how its run was served ("no run", "from the cache",
        "computed", ...)."""
        before = self.log()
        body = {"page": url_path(view["page"])}
        if view["query_params"]:     # the agent API takes lists of strings
            body["query_params"] = {k: [str(x) for x in v] if isinstance(v, (list, tuple)) else [str(v)]
                                    for k, v in view["query_params"].items()}
        t0 = time.perf_counter()
        try:
            snap = self.interact(body)
        except urllib.error.HTTPError as exc:
            return time.perf_counter() - t0, f"error: {exc} {exc.read()[:200]!r}"
        new = self.log()[len(before):]
        opened = re.findall(r"(session-\d+) opened", new)
        session = opened[-1] if opened else None
        while session is not None and re.search(rf"run \w+: {session} asked: (.*?) \[", self.log()[len(before):]):
            asked = re.findall(rf"run \w+: {session} asked: (.*?) \[", self.log()[len(before):])
            drawn = re.search(rf"run \w+: {session} (done|stopped|failed) after", self.log()[len(before):])
            if drawn:
                how = "from the cache" if all(a == "from the cache" for a in asked) else "computed"
                return time.perf_counter() - t0, how if drawn.group(1) == "done" else f"{how}, {drawn.group(1)}"
            if time.perf_counter() - t0 > VIEW_TIMEOUT:
                return time.perf_counter() - t0, "timed out"
            time.sleep(0.3)
            snap = self.interact({"session_id": snap["session_id"]})   # a rerun: the page harvests its run
        return time.perf_counter() - t0, "no run"

    def wait_fill(self) -> float:
        t0 = time.perf_counter()
        while "start-up fill: done" not in self.log():
            if time.perf_counter() - t0 > FILL_TIMEOUT or self.proc.poll() is not None:
                raise TimeoutError("the start-up fill did not finish")
            time.sleep(1.0)
        return time.perf_counter() - t0


def measure(warm: bool) -> tuple[list[tuple[dict, float, str]], float, float]:
    """([(view, seconds, how)], the server's first page's seconds, the fill's seconds)."""
    with tempfile.TemporaryDirectory(prefix="rpo-bench-pages-") as tmp, Server(tmp, warm) as server:
        t0 = time.perf_counter()
        server.interact({"page": ""})           # the server's first page: imports, and (warm) starts the fill
        first = time.perf_counter() - t0
        fill = server.wait_fill() if warm else 0.0
        rows = [(view, *server.open_view(view)) for view in first_views(registered_pages())]
        return rows, first, fill


def run(warm=True) -> int:
    """Print the table (cold, warm); exit status 1 when a warm first view is over TARGET_SECONDS.
    ``warm=False``: the cold views only (no start-up fill to wait for), no target checked."""
    load = os.getloadavg()
    print(f"First views on a fresh server (agent API, no browser; load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})",
          flush=True)
    cold, cold_first, _ = measure(warm=False)
    if not warm:
        print(f"  server's first page (imports): cold {cold_first:.1f} s; warm views not measured")
        print(f"  {'view':58s} {'cold s':>7s}  served")
        for view, c, how_c in cold:
            print(f"  {view['label'][:58]:58s} {c:7.1f}  {how_c}", flush=True)
        return 0
    warm, warm_first, fill = measure(warm=True)
    print(f"  server's first page (imports): cold {cold_first:.1f} s, warm {warm_first:.1f} s; "
          f"start-up fill {fill:.0f} s")
    print(f"  {'view':58s} {'cold s':>7s} {'warm s':>7s}  warm view served")
    status = 0
    for (view, c, how_c), (_, w, how_w) in zip(cold, warm):
        ok = w <= TARGET_SECONDS
        status |= not ok
        print(f"  {view['label'][:58]:58s} {c:7.1f} {w:7.1f}  {how_w}{'' if ok else '  MISS'}", flush=True)
    return int(status)
