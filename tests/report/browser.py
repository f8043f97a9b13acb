"""What the browser tests share: Debian's chromium, headless, driven by Playwright (the
fixtures `site`, `browser` and `page` are in conftest.py, `browser` once per test module, `site` once per session)."""
from __future__ import annotations

import shutil

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
WIDTHS = (1440, 390)   # desktop and phone: docs/site.md "Boards, state in the URL, access"

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover
    sync_playwright = None

needs_browser = [
    pytest.mark.skipif(sync_playwright is None, reason="the playwright package is not installed (pip install playwright)"),
    pytest.mark.skipif(shutil.which("chromium") is None,
                       reason="no chromium binary: `make test` installs it as root (apt-get install chromium)"),
]


def new_page(browser, width: int = 1300):
    """A page that records console errors and uncaught exceptions in `page.errors`."""
    pg = browser.new_page(viewport={"width": width, "height": 900})
    pg.errors = []
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    return pg
