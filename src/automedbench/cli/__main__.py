"""`python -m automedbench.cli`: the same as the `automedbench` console script."""
from . import main

main()
