"""Medal bands computed from the track's classical baselines (docs/scoring.md#enhancement-bands), never hard-coded.

    python -m automedbench.tracks.enhancement.baselines DATASET_DIR [--workers 2]

runs every baseline of the dataset's variant on every case (public input → prediction),
scores it against the private reference with the track's metric (mean SSIM and PSNR, data
range = the reference's max − min) and writes ``DATASET_DIR/bands.json`` (the medal bands,
exactly the fields of tracks.base.MedalBands, which the core reads) and
``DATASET_DIR/baselines.json`` (every baseline's mean SSIM/PSNR and the three band edges):

    denoise:           identity (the low-dose input itself), Gaussian σ = 1 px,
                       non-local means (scikit-image, patch 5, distance 6, h = 0.8·σ̂, σ̂ from
                       the median absolute diagonal Haar detail / 0.6745, Donoho 1995)
    super_resolution:  nearest neighbour, bicubic (skimage.transform.resize, order 3)

top = the best baseline's mean SSIM (and PSNR). Band edges (docs/scoring.md#enhancement-bands):
    A = top + 0.02 SSIM (+1 dB),  B = top − 0.02 (−1 dB),  C = top − 0.05 (−3 dB).
Mapping onto the seam's two medal thresholds (MedalBands on the task metric, mean SSIM ×
completion) — decided here, because the seam has two thresholds and the rule three edges:
    good = the B edge (top − 0.02): matching the best classical baseline earns a good medal;
    okay = the C edge (top − 0.05): close to it;
    below the C edge → rating C (a valid submission that is worse than the baselines).
The A edge (top + 0.02, "beats the classical baselines") is kept in bands.json (`edges.A`)
for reports; a classical method rarely clears it (our own TV / back-projection references
land between B and A on the demo data), so making it the bar for "good" would leave every
honest classical pipeline without a good medal.
The PSNR edges are recorded for reports; the medal uses SSIM (the task metric).
Both floors lie above the trivial baseline (identity for denoising, nearest neighbour for
super-resolution: no enhancement at all): okay ≥ its SSIM + 0.01 and good ≥ okay, so
handing the input back earns no medal (docs/scoring.md "Medals start above chance").
"""
from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

import numpy as np
import typer

from ...metrics.ssim import ssim_psnr

BANDS_FILE = "bands.json"          # MedalBands fields only: what the core reads
DETAILS_FILE = "baselines.json"    # every baseline's numbers and the three band edges
BAND_OFFSETS = {"A": (0.02, 1.0), "B": (-0.02, -1.0), "C": (-0.05, -3.0)}   # (SSIM, dB)


def noise_sigma(image: np.ndarray) -> float:
    """Robust Gaussian noise σ from the diagonal Haar detail (MAD / 0.6745)."""
    im = image[: image.shape[0] // 2 * 2, : image.shape[1] // 2 * 2]
    d = (im[0::2, 0::2] - im[0::2, 1::2] - im[1::2, 0::2] + im[1::2, 1::2]) / 2.0
    return float(np.median(np.abs(d)) / 0.6745)


def _identity(x: np.ndarray, info: dict) -> np.ndarray:
    return x


def _gaussian(x: np.ndarray, info: dict) -> np.ndarray:
    from scipy.ndimage import gaussian_filter

    return gaussian_filter(x, 1.0)


def _nlm(x: np.ndarray, info: dict) -> np.ndarray:
    from skimage.restoration import denoise_nl_means

    sigma = noise_sigma(x)
    return denoise_nl_means(x, h=0.8 * sigma, sigma=sigma, patch_size=5, patch_distance=6, fast_mode=True)


def _nearest(x: np.ndarray, info: dict) -> np.ndarray:
    s = int(info["scale"])
    return np.repeat(np.repeat(x, s, axis=0), s, axis=1)


def _bicubic(x: np.ndarray, info: dict) -> np.ndarray:
    from skimage.transform import resize

    return resize(x, tuple(info["output_shape"]), order=3, mode="edge", anti_aliasing=False)


BASELINES: dict[str, dict[str, Callable[[np.ndarray, dict], np.ndarray]]] = {
    "denoise": {"identity": _identity, "gaussian_sigma1": _gaussian, "nl_means": _nlm},
    "super_resolution": {"nearest": _nearest, "bicubic": _bicubic},
}


# the baseline that does no enhancement (the input as it is, or each pixel repeated): every
# medal floor lies above its SSIM, so handing the input back earns no medal (docs/scoring.md
# "Medals start above chance")
TRIVIAL = {"denoise": "identity", "super_resolution": "nearest"}
ABOVE_TRIVIAL = 0.01   # the okay floor's least distance above the trivial baseline (SSIM)


def bands_from_top(top_ssim: float, top_psnr: float | None, trivial: tuple[str, float] | None = None) -> dict[str, Any]:
    edges = {k: {"ssim": round(top_ssim + ds, 6),
                 "psnr": None if top_psnr is None else round(top_psnr + dp, 4)}
             for k, (ds, dp) in BAND_OFFSETS.items()}
    good, okay = round(top_ssim + BAND_OFFSETS["B"][0], 6), round(top_ssim + BAND_OFFSETS["C"][0], 6)
    source = "bands.json (computed from the baselines in baselines.json)"
    if trivial is not None:
        name, value = trivial
        okay = max(okay, round(value + ABOVE_TRIVIAL, 6))
        good = max(good, okay)   # raised only as far as okay: then any medal is a good one
        source += f"; every floor above the trivial baseline ({name}, SSIM {value:.3f})"
    return {"edges": edges,
            "medal_bands": {"metric": "ssim", "good": good, "okay": okay, "source": source},
            "mapping": "good = B edge (top - 0.02), okay = C edge (top - 0.05); A edge = top + 0.02 reported only"}


def _one_case(root: Path, case: dict[str, Any]) -> dict[str, tuple[float, float]]:
    cid = case["case_id"]
    x = np.load(root / "public" / cid / "input.npy").astype(np.float64)
    ref = np.load(root / "private" / cid / "reference.npy").astype(np.float64)
    info = {"scale": case.get("scale", 2), "output_shape": case.get("output_shape", list(ref.shape))}
    out = {}
    for name, fn in BASELINES[case["variant"]].items():
        pred = fn(x, info)
        s, p, _ = ssim_psnr(ref, pred)
        out[name] = (s, min(p, 100.0))
    return out


def compute_bands(dataset_dir: Path | str, workers: int = 2, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Run the baselines on every case of a staged dataset; write and return bands.json."""
    root = Path(dataset_dir)
    manifest = json.loads((root / "manifest.json").read_text())
    cases = manifest["cases"]
    variants = {c.get("variant") for c in cases}
    if len(variants) != 1 or next(iter(variants)) not in BASELINES:
        raise ValueError(f"{root}: cases must share one variant in {sorted(BASELINES)}, found {sorted(map(str, variants))}")
    variant = variants.pop()
    results: list[dict[str, tuple[float, float]]] = []
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for i, r in enumerate(pool.map(lambda c: _one_case(root, c), cases)):
            results.append(r)
            if progress:
                progress(i + 1, len(cases))
    per_baseline = {}
    for name in BASELINES[variant]:
        ssims = [r[name][0] for r in results]
        psnrs = [r[name][1] for r in results]
        per_baseline[name] = {"ssim": float(np.mean(ssims)), "psnr": float(np.mean(psnrs))}
    top_name = max(per_baseline, key=lambda n: per_baseline[n]["ssim"])
    top_ssim = per_baseline[top_name]["ssim"]
    top_psnr = max(v["psnr"] for v in per_baseline.values())
    bands = {"dataset": manifest.get("dataset", root.name), "variant": variant, "metric": "ssim",
             "n_cases": len(cases), "baselines": per_baseline, "top": {"baseline": top_name, "ssim": top_ssim,
                                                                       "psnr": top_psnr},
             "data_range": "reference max - min, per case",
             **bands_from_top(top_ssim, None if math.isinf(top_psnr) else top_psnr,
                              (TRIVIAL[variant], per_baseline[TRIVIAL[variant]]["ssim"]))}
    (root / DETAILS_FILE).write_text(json.dumps(bands, indent=2) + "\n")
    (root / BANDS_FILE).write_text(json.dumps(bands["medal_bands"], indent=2) + "\n")
    return bands


def main() -> None:

    app = typer.Typer(add_completion=False)

    @app.command()
    def run(dataset_dir: Path = typer.Argument(..., help="a staged enhancement dataset (has manifest.json)"),
            workers: int = typer.Option(2, help="threads")) -> None:
        """Run the enhancement baselines and write DATASET_DIR/bands.json."""
        from rich.console import Console
        from rich.progress import Progress

        console = Console()
        if not (dataset_dir / "manifest.json").is_file():
            console.print(f"[red]error:[/red] {dataset_dir} has no manifest.json (not a staged dataset)")
            raise typer.Exit(2)
        with Progress(console=console) as bar:
            task = bar.add_task("baselines", total=None)
            try:
                bands = compute_bands(dataset_dir, workers, lambda d, n: bar.update(task, completed=d, total=n))
            except (ValueError, OSError, KeyError) as exc:
                console.print(f"[red]error:[/red] {str(exc).splitlines()[0]}")
                raise typer.Exit(2) from None
        for name, v in bands["baselines"].items():
            console.print(f"{name:16s} SSIM {v['ssim']:.4f}  PSNR {v['psnr']:.2f} dB")
        mb = bands["medal_bands"]
        console.print(f"top {bands['top']['baseline']} SSIM {bands['top']['ssim']:.4f}: good ≥ {mb['good']:.4f} (B edge), "
                      f"okay ≥ {mb['okay']:.4f} (C edge), A edge {bands['edges']['A']['ssim']:.4f} "
                      f"→ {dataset_dir / BANDS_FILE} (details: {DETAILS_FILE})")

    app()


if __name__ == "__main__":
    main()
