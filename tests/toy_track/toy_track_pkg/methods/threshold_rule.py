"""The toy track's method, installed in the workspace by the setup call: a value above the
threshold is `high`, else `low`."""


def label(value: float, threshold: float) -> str:
    return "high" if value > threshold else "low"
