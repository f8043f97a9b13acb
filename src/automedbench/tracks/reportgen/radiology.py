"""Weight-backed clinical metrics, the optional `[radiology]` extra: RadGraph F1 (Jain et al.
2021; Delbrouck et al. 2022, `radgraph` package) and CheXbert micro P/R/F1 over the 14
CheXpert labels (Smit et al. 2020; `f1chexbert` package).

Both need model weights from a model hub. We never fetch them unless the caller allows it
(ScoringContext.extras["allow_weight_download"] = True); otherwise the hub is put in offline
mode and only weights already in the local cache are used. When a package or its weights are
missing the metric is None with a one-line reason — never a silent substitute.
"""
from __future__ import annotations

import importlib.util
import os
from contextlib import contextmanager
from collections.abc import Iterator
from typing import Any

INSTALL_HINT = "pip install 'automedbench[radiology]'"


@contextmanager
def _hub_mode(allow_download: bool) -> Iterator[None]:
    keys = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    saved = {k: os.environ.get(k) for k in keys}
    if not allow_download:
        for k in keys:
            os.environ[k] = "1"
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}"


def radgraph_f1(hyps: list[str], refs: list[str], *, allow_download: bool = False
                ) -> tuple[list[float] | None, str]:
    """Per-study RadGraph F1 (partial reward), or (None, reason)."""
    if importlib.util.find_spec("radgraph") is None:
        return None, f"radgraph package not installed ({INSTALL_HINT})"
    try:
        with _hub_mode(allow_download):
            from radgraph import F1RadGraph

            scorer = F1RadGraph(reward_level="partial")
            _, per_study, _, _ = scorer(hyps=hyps, refs=refs)
        return [float(x) for x in per_study], ""
    except Exception as exc:  # noqa: BLE001 - missing weights offline, a broken install: reported, not raised
        return None, f"RadGraph unavailable ({'download allowed' if allow_download else 'offline'}): {_one_line(exc)}"


def chexbert_micro(hyps: list[str], refs: list[str], *, allow_download: bool = False
                   ) -> tuple[dict[str, float] | None, str]:
    """{"chexbert_micro_p", "chexbert_micro_r", "chexbert_micro_f1"} or (None, reason)."""
    if importlib.util.find_spec("f1chexbert") is None:
        return None, f"f1chexbert package not installed ({INSTALL_HINT})"
    try:
        with _hub_mode(allow_download):
            from f1chexbert import F1CheXbert

            scorer = F1CheXbert(device="cpu")
            _, _, report, _ = scorer(hyps=hyps, refs=refs)
        micro: dict[str, Any] = report["micro avg"]
        return {"chexbert_micro_p": float(micro["precision"]), "chexbert_micro_r": float(micro["recall"]),
                "chexbert_micro_f1": float(micro["f1-score"])}, ""
    except Exception as exc:  # noqa: BLE001 - as above
        return None, f"CheXbert unavailable ({'download allowed' if allow_download else 'offline'}): {_one_line(exc)}"
