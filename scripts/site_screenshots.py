"""Screenshots of the careless agent's run page per demo task, for docs/site.md "Screenshots".

    automedbench demo --repeats 1
    .venv/bin/python scripts/site_screenshots.py [SITE] [OUT]     # defaults: demo_out/leaderboard docs/screenshots

Per task: the page top at 1440 px (1440 x 1500) and 390 px (390 x 1600) — section menu, scores,
"Where the points went", the first cases — and its first picture row (the per-case table's first
row with a picture, at 1440 px), each as <OUT>/run-careless-<task>-{1440,390,pictures}.png.
At 390 px, the wide tables as cards (docs/site.md "Phone width and card pages"): the index's
runs table (<OUT>/index-runs-390.png) and the first careless run's fired error codes
(<OUT>/run-careless-errors-390.png).
Page tops are saved with an adaptive palette of 256 colours, so that each stays small. Needs
Playwright and a chromium (Debian's, as the browser tests use: tests/report/browser.py).
"""
from __future__ import annotations

import io
import re
import shutil
import sys
from pathlib import Path

from PIL import Image
from playwright.sync_api import sync_playwright

PAGE = re.compile(r"^\d{8}T\d{6}Z_(?P<task>.+)_(?P<tier>lite|standard|pro)_careless_[0-9a-f]+\.html$")
TOPS = ((1440, 1500), (390, 1600))
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def save_small(png: bytes, path: Path, palette: bool = True) -> None:
    """A page top in 256 colours (text and flat colours survive it); a picture row in full colour
    (a palette posterises the grey images it is about)."""
    with Image.open(io.BytesIO(png)) as im:
        rgb = im.convert("RGB")
        (rgb.quantize(colors=256, method=Image.Quantize.MEDIANCUT) if palette else rgb).save(path, optimize=True)


def phone_cards(browser, page_file: Path, table: str, path: Path, height: int = 1200) -> None:
    """The top of a table that is cards at 390 px, up to `height` px of it."""
    pg = browser.new_page(viewport={"width": 390, "height": height})
    pg.goto(page_file.as_uri())
    pg.wait_for_load_state("load")
    el = pg.locator(table)
    if el.count():
        el.scroll_into_view_if_needed()
        box = el.bounding_box()
        top = pg.evaluate("window.scrollY") + box["y"] - 40
        pg.evaluate(f"window.scrollTo(0, {top})")
        save_small(pg.screenshot(), path)
        print(table, "->", path)
    pg.close()


def main(site: Path, out: Path) -> int:
    site = site.resolve()
    pages = sorted((m.group("task"), p) for p in (site / "runs").glob("*.html") if (m := PAGE.match(p.name)))
    if not pages:
        print(f"no careless run page under {site / 'runs'}: run `automedbench demo --repeats 1` first", file=sys.stderr)
        return 1
    out.mkdir(parents=True, exist_ok=True)
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=ARGS)
        for task, page_file in pages:
            for width, height in TOPS:
                pg = browser.new_page(viewport={"width": width, "height": height})
                pg.goto(page_file.as_uri())
                pg.wait_for_load_state("load")
                save_small(pg.screenshot(), out / f"run-careless-{task}-{width}.png")
                if width == TOPS[0][0]:
                    row = pg.locator('#cases-table tr[data-pictured="1"]').first
                    if row.count():
                        row.scroll_into_view_if_needed()
                        pg.wait_for_function("Array.from(document.querySelector('#cases-table tr[data-pictured=\"1\"]')"
                                             ".querySelectorAll('img')).every(i => i.complete)")
                        pg.wait_for_timeout(300)                  # the answer cards' frames
                        save_small(row.screenshot(), out / f"run-careless-{task}-pictures.png", palette=False)
                pg.close()
            print(task, "->", out)
        phone_cards(browser, site / "index.html", "#runs-table", out / "index-runs-390.png")
        phone_cards(browser, pages[0][1], "#errors-list", out / "run-careless-errors-390.png")
        browser.close()
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    sys.exit(main(Path(args[0] if args else "demo_out/leaderboard"), Path(args[1] if len(args) > 1 else "docs/screenshots")))
