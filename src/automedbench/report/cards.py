"""A track's HTML card as the site shows it (docs/site.md "Phone width and card pages").

A card (a picture of media type text/html: VQA's answer, report generation's findings) is a
page of its own when opened, so the site gives it what a page needs, whatever the track wrote:
`<html lang="en">` and a `<title>` naming the case and the caption. The run page also carries
the card inline (`srcdoc`, up to INLINE_LIMIT bytes), so its frame can be fitted to the card's
height from file:// as well as over HTTP: a frame of another file is another origin on file://.
"""
from __future__ import annotations

import html
import re

INLINE_LIMIT = 200_000   # bytes: a larger card is framed from its file (fixed height, scrolls)
_DOCTYPE = re.compile(r"^\s*<!doctype[^>]*>", re.IGNORECASE)
_TITLE = re.compile(r"<title[\s>]", re.IGNORECASE)
_LANG = re.compile(r"<html\b[^>]*\blang\s*=", re.IGNORECASE)


def card_page(doc: str, title: str) -> str:
    """The card with a language and a title: unchanged when it has both, else its content under
    a head that declares them (a second <html>/<head> the track wrote is merged by the parser)."""
    if _TITLE.search(doc) and _LANG.search(doc):
        return doc
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title></head>" + _DOCTYPE.sub("", doc, count=1))
