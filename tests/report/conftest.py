"""Fixtures of the report tests: the factories of factories.py, and for the browser tests one
site built per session (site_fixture.py). The headless chromium (`browser`) is tests/conftest.py's:
one Playwright per test process, whichever folder's tests ask first (two would fail: Playwright's
sync API refuses to start while another one's event loop runs in the same thread)."""
import pytest

from .browser import new_page
from .factories import build_report, write_run


@pytest.fixture
def make_report():
    return build_report


@pytest.fixture
def make_run():
    return write_run


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The fixture runs (site_fixture.make_site_runs) and their site, built once: tests only read it."""
    from automedbench.report import collect_reports, write_leaderboard

    from .site_fixture import make_site_runs
    root = tmp_path_factory.mktemp("runs")
    reps = make_site_runs(root)
    out = tmp_path_factory.mktemp("site")
    write_leaderboard(collect_reports([root]), out, analysis_plots=True)
    return out, reps


@pytest.fixture
def page(browser):
    pg = new_page(browser)
    yield pg
    pg.close()
