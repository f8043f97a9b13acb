"""Fixtures of the report tests: the factories of factories.py."""
import pytest

from .factories import build_report, write_run


@pytest.fixture
def make_report():
    return build_report


@pytest.fixture
def make_run():
    return write_run
