"""The README's picture: the Convergence page after Home's "Figure 1c" preset has trained.

    python tests/browser/readme_picture.py .github/convergence.png

Runs ``streamlit run app.py`` and Debian's chromium as the browser tests do (``live_app``), waits
for the preset's run to finish (pressing Start if the page's estimate did not start it by itself),
and saves one 1400 x 1000 screenshot. Not a test: it asserts nothing beyond reaching "done".
"""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from browser.live_app import CHROMIUM, CHROMIUM_ARGS, REPO_ROOT, free_port, wait_healthy  # noqa: E402


def wait_until_idle(page):
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=120_000)


def main(out):
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
               "--server.port", str(port), "--server.address", "127.0.0.1",
               "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
        proc = subprocess.Popen(cmd, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                                env={**os.environ, "RPO_REAL_DATA_CACHE": tmp})
        try:
            wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", proc, timeout=120)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
                page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
                page.set_default_timeout(60_000)
                expect.set_options(timeout=120_000)
                page.goto(f"http://127.0.0.1:{port}", wait_until="domcontentloaded")
                page.get_by_role("link", name="Figure 1c: convergence on ind").click()
                expect(page.get_by_text(re.compile(r"Status: (done|running|idle)"))).to_be_visible()
                wait_until_idle(page)
                if page.get_by_text(re.compile(r"Status: idle")).is_visible():
                    page.get_by_test_id("stMainBlockContainer").get_by_role("button", name="Start", exact=True).click()
                expect(page.get_by_text(re.compile(r"Status: done"))).to_be_visible()
                wait_until_idle(page)
                page.mouse.move(5, 995)           # off the charts: no plotly toolbar in the picture
                page.wait_for_timeout(3000)       # plotly's last redraw
                page.screenshot(path=str(out))
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=20)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO_ROOT / ".github" / "convergence.png")
