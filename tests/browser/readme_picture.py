"""The README's picture: the Convergence page after Home's "Figure 1c" preset has trained.

    python tests/browser/readme_picture.py .github/convergence.png

Runs ``streamlit run app.py`` and Debian's chromium as the browser tests do (``live_app``), waits
for the preset's run to finish (pressing Start if the page's estimate did not start it by itself),
and saves one 1400 x 1000 screenshot. Not a test: it asserts nothing beyond reaching "done".
"""
import re
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from browser.live_app import CHROMIUM, CHROMIUM_ARGS, REPO_ROOT, streamlit_app  # noqa: E402


def wait_until_idle(page):
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=120_000)


def main(out):
    with tempfile.TemporaryDirectory() as tmp, \
            streamlit_app(None, {"RPO_REAL_DATA_CACHE": tmp}, timeout=120) as (base, _, _):
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            page.set_default_timeout(60_000)
            expect.set_options(timeout=120_000)
            page.goto(base, wait_until="domcontentloaded")
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


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO_ROOT / ".github" / "convergence.png")
