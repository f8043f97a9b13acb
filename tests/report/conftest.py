"""Fixtures of the report tests: the factories of factories.py, and for the browser tests one
site built per session (site_fixture.py) and one headless chromium."""
import pytest

from .browser import ARGS, CHROMIUM, new_page, sync_playwright
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


@pytest.fixture(scope="session")
def browser():
    if sync_playwright is None:
        pytest.skip("the playwright package is not installed")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    pg = new_page(browser)
    yield pg
    pg.close()
