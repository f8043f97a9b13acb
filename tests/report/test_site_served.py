"""The site served over HTTP from its own folder (as `python -m http.server` would): every
link and picture of every page answers 200, the run's raw record included (docs/site.md
"Raw record"). A loopback server in a thread; nothing leaves this machine."""
from __future__ import annotations

import functools
import threading
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from urllib.error import HTTPError
from urllib.parse import unquote, urljoin, urlsplit

import pytest
from tests.report.test_site import parse

from automedbench.report.site import run_slug


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):   # no request log on the test's output
        pass


@pytest.fixture(scope="module")
def served(site):
    out, reps = site
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(out)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", out, reps
    server.shutdown()
    server.server_close()


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, resp.read()
    except HTTPError as e:
        return e.code, b""


def test_no_broken_link_when_served_over_http(served):
    base, out, _ = served
    pages = [p.relative_to(out).as_posix() for p in sorted(out.rglob("*.html"))]
    seen: dict[str, int] = {}
    broken = []
    for rel in pages:
        page_url = urljoin(base, rel)
        for ref in parse(out / rel).refs:
            parts = urlsplit(ref)
            if parts.scheme or parts.netloc or not parts.path:
                continue          # same-page fragments: test_site.py checks their ids
            url = urljoin(page_url, parts.path)
            if url not in seen:
                seen[url] = _get(url)[0]
            if seen[url] != 200:
                broken.append((rel, ref, seen[url]))
    assert broken == [], broken[:10]
    assert len(seen) > 100


def test_raw_record_is_inside_the_site_and_served(served):
    base, out, _ = served
    slug = run_slug("seg-a_lite_beta_0")
    refs = parse(out / "runs" / f"{slug}.html").refs
    raw = [r for r in refs if "/raw/" in r]
    assert {r.rsplit("/", 1)[-1] for r in raw} >= {"trace.jsonl.txt", "conversation.json", "report.json", "index.html"}
    # the report's copy is not named detail_report.json: a site inside a sweep root adds no runs
    assert not list(out.rglob("detail_report.json"))
    status, body = _get(urljoin(base, f"runs/{slug}/raw/report.json"))
    assert status == 200 and b'"run_id"' in body
    assert all(not r.startswith("..") for r in raw)                     # inside the site folder
    status, body = _get(urljoin(base, f"runs/{slug}/raw/trace.jsonl.txt"))
    assert status == 200 and b'"tool_call"' in body
    status, body = _get(urljoin(base, f"runs/{slug}/raw/workspace/index.html"))
    assert status == 200 and b"plan/plan.md" in body
    status, body = _get(urljoin(base, f"runs/{slug}/raw/workspace/plan/plan.md"))
    assert status == 200 and b"inspect <one> case" in body
    assert unquote(urlsplit(raw[0]).path).startswith(slug)
