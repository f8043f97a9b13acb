"""The bwrap backend: the sandbox, its bind layout and /etc, the prewarmed interpreter for the judge's replays."""
from .backend import *  # noqa: F403 -- the package keeps the backend module names
from .backend import __all__ as __all__
