"""LPIPS (Zhang et al., CVPR 2018) as an OPTIONAL diagnostic: the `lpips` package and its
network weights are an extra (`pip install automedbench[lpips]`). When either is missing
the value is None and `lpips_status()` says why — never a silent substitute or a 0.

Images are mapped to [-1, 1] with the REFERENCE's min and range (the same data range as
SSIM/PSNR) and repeated to three channels; distance with the AlexNet backbone."""
from __future__ import annotations

import threading
from typing import Any

import numpy as np

_lock = threading.Lock()
_state: dict[str, object] = {}


def _model() -> Any:   # an lpips.LPIPS network (optional extra, untyped)
    with _lock:
        if "model" in _state or "error" in _state:
            return _state.get("model")
        try:
            import lpips  # noqa: F401  (optional extra)
            import torch  # noqa: F401
        except ImportError:
            _state["error"] = "lpips not installed (pip install 'automedbench[lpips]')"
            return None
        try:
            import lpips as _lp

            _state["model"] = _lp.LPIPS(net="alex", verbose=False).eval()
        except Exception as exc:  # weights not cached offline, torch/vision mismatch, ...
            _state["error"] = f"lpips unavailable: {type(exc).__name__}: {str(exc).splitlines()[0][:100] if str(exc) else ''}"
            return None
        return _state["model"]


def lpips_status() -> str:
    """'' when LPIPS is computed, else the one-line reason it is null."""
    _model()
    return str(_state.get("error", ""))


def lpips_distance(reference: np.ndarray, prediction: np.ndarray) -> float | None:
    model = _model()
    if model is None:
        return None
    import torch

    lo = float(reference.min())
    rng = float(reference.max()) - lo or 1.0

    def to_tensor(a: np.ndarray) -> Any:   # a torch.Tensor
        x = (np.asarray(a, dtype=np.float32) - lo) / rng * 2.0 - 1.0
        return torch.from_numpy(np.ascontiguousarray(np.clip(x, -1, 1)))[None, None].repeat(1, 3, 1, 1)

    with torch.no_grad():
        return float(model(to_tensor(reference), to_tensor(prediction)).item())
