"""Real browser: every link on Home (the presets, the teacher's plan, the challenges), clicked in the app,
opens its page with the link's values and flags, as the same link pasted into a new tab does (issue 43).

Each link is clicked from a fresh Home session (whose sidebar draws "Predict first" off: the case
where an in-app link used to lose ``predict=true``). On the target page the address bar must hold
every flag of the link (``predict``, ``hide``, ``projector``, ``challenge``) and every parameter with
the link's value, or none when that is the page's default; the sidebar's Predict first switch must
say what the link says; and no note may say that a parameter of the link is unknown or unused.
"""
from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from engine.app.page_content.challenges import CHALLENGES, start_params
from engine.app.page_content.presets import PRESETS, TEACHER_LINKS
from pages._params import FLAGS, page_parameters

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# (kind, the link's text on Home, its place among the challenge cards, page, parameters)
LINKS = ([("preset", p["label"], 0, p["page"], p["query_params"]) for p in PRESETS]
         + [("plan", f"{t['label']} ({t['minutes']} min)", 0, t["page"], t["query_params"]) for t in TEACHER_LINKS]
         + [("challenge", "Take the challenge", i, c.page, start_params(c)) for i, c in enumerate(CHALLENGES)])


def idle(page, timeout=120_000):
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=timeout)


def test_the_links_name_only_parameters_of_their_pages():
    """The table check without a browser: a link naming a parameter its page does not have fails here."""
    for kind, label, _, target, query in LINKS:
        unknown = [k for k in query if k not in page_parameters(target)]
        assert not unknown, f"{kind} {label!r} names {unknown}, which {target} does not have"


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("kind, label, index, target, query", LINKS,
                         ids=[f"{k}:{q.get('challenge') or l[:30]}" for k, l, _, _, q in LINKS])
def test_a_home_link_opens_its_page_with_the_link_s_values_and_flags(streamlit_server, browser_page, screenshot_dir,
                                                                     kind, label, index, target, query):
    page = browser_page
    page.goto(streamlit_server, wait_until="domcontentloaded")
    expect(page.get_by_role("heading", name="Presets")).to_be_visible(timeout=120_000)
    idle(page)
    # the link by its label (a challenge's by its key in the address: every card says "Take the
    # challenge"); visible only: a rerun of Home can leave hidden copies of its links in the page
    key = query.get("challenge")
    selector = f'a[data-testid="stPageLink-NavLink"][href*="challenge={key}"]' if key else 'a[data-testid="stPageLink-NavLink"]'
    link = page.locator(f"{selector}:visible", has_text=label).first
    expect(link).to_be_visible(timeout=180_000)       # Home's last section (the challenges) draws last
    link.scroll_into_view_if_needed(timeout=60_000)
    idle(page)
    link.click()
    stem = target.removeprefix("pages/").removesuffix(".py")
    page.wait_for_url(re.compile(rf"/{stem}(\?|$)"), timeout=300_000)
    page.wait_for_selector('[data-testid="stMain"] h1', timeout=120_000)
    page.wait_for_timeout(1500)              # the page's first script run writes its corrections
    url = parse_qs(urlparse(page.url).query, keep_blank_values=True)
    wanted = {k: [str(x) for x in v] if isinstance(v, (list, tuple)) else [str(v)]
              for k, v in query.items() if k != "go"}                   # go=1 is used once and removed
    for flag in FLAGS:
        if flag in wanted:
            assert url.get(flag) == wanted[flag], (flag, page.url)
    for key, value in wanted.items():
        if key not in FLAGS:        # the link's value, or no parameter when it is the page's default
            assert url.get(key, value) == value, (key, value, page.url)
    notes = page.locator('[data-testid="stAlert"]').all_inner_texts()
    assert not [n for n in notes if "does not know" in n or "does not use" in n or "no challenge" in n], notes
    toggle = page.locator('.st-key-predict input[type="checkbox"]')
    if toggle.count():
        assert toggle.first.is_checked() == (wanted.get("predict") == ["true"]), page.url
    slug = re.sub(r"[^a-z0-9]+", "_", (query.get("challenge") or label).lower())[:40]
    page.screenshot(path=str(screenshot_dir / f"home_link_{kind}_{slug}.png"))
