import pytest

from automedbench.metrics.meteor import load_wordnet


@pytest.fixture(scope="session")
def wordnet():
    reader, reason = load_wordnet()
    if reader is None:   # Makefile `sysdeps` installs Debian's wordnet-base; say so when absent
        pytest.skip(f"METEOR cross-check needs WordNet offline: {reason}")
    return reader
