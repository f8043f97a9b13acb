"""Documented, seeded degradations shared by the demo builders and the official stagers.

Low-dose CT (`simulate_low_dose`): the classic projection-domain Poisson model (e.g. Zeng
et al., IEEE TNS 2015, without the electronic-noise term; LoDoPaB-CT, Sci Data 2021):
  HU → linear attenuation μ = μ_water·(1 + HU/1000), μ_water = 0.0192 /mm (≈ 70 keV);
  parallel-beam line integrals p = R[μ]·pixel_mm (skimage.transform.radon, `n_angles` views);
  counts N ~ Poisson(I0·exp(−p)), N clipped to ≥ 1, p̂ = −log(N/I0);
  filtered back-projection (ramp filter, skimage.transform.iradon) back to HU.
The full-dose REFERENCE is the FBP of the noiseless sinogram (same geometry and filter), so
input and reference differ only by the simulated quantum noise, never by reconstruction blur.

Super-resolution (`block_downsample`): the ×s low-resolution image is the mean of each s×s
block (an ideal box point-spread function + decimation; pixel (i, j) of the low-resolution
image covers reference pixels s·i … s·i+s−1).
"""
from __future__ import annotations

import numpy as np

MU_WATER_PER_MM = 0.0192
HU_CLIP = (-1024.0, 3071.0)


def hu_to_mu(hu: np.ndarray) -> np.ndarray:
    return np.clip(MU_WATER_PER_MM * (1.0 + np.clip(hu, *HU_CLIP) / 1000.0), 0.0, None)


def mu_to_hu(mu: np.ndarray) -> np.ndarray:
    return (mu / MU_WATER_PER_MM - 1.0) * 1000.0


def sinogram(hu: np.ndarray, pixel_mm: float, n_angles: int) -> tuple[np.ndarray, np.ndarray]:
    """(line integrals in units of attenuation, angles in degrees)."""
    from skimage.transform import radon

    theta = np.linspace(0.0, 180.0, n_angles, endpoint=False)
    return radon(hu_to_mu(hu).astype(np.float64), theta=theta, circle=False) * pixel_mm, theta


def fbp_hu(sino: np.ndarray, theta: np.ndarray, pixel_mm: float, size: int) -> np.ndarray:
    from skimage.transform import iradon

    mu = iradon(sino / pixel_mm, theta=theta, circle=False, output_size=size, filter_name="ramp")
    return mu_to_hu(mu)


def simulate_low_dose(sino: np.ndarray, theta: np.ndarray, pixel_mm: float, size: int,
                      incident_photons: float, rng: np.random.Generator) -> np.ndarray:
    """The low-dose FBP image (HU) for incident photon count `incident_photons` per ray."""
    counts = rng.poisson(incident_photons * np.exp(-sino))
    noisy = -np.log(np.maximum(counts, 1) / incident_photons)
    return fbp_hu(noisy, theta, pixel_mm, size)


def block_downsample(image: np.ndarray, factor: int) -> np.ndarray:
    """Mean over factor×factor blocks (image dims must be multiples of factor)."""
    h, w = image.shape
    if h % factor or w % factor:
        raise ValueError(f"image {image.shape} is not a multiple of {factor}")
    return image.reshape(h // factor, factor, w // factor, factor).mean(axis=(1, 3))


def crop_to_multiple(image: np.ndarray, factor: int) -> np.ndarray:
    h, w = image.shape
    return image[: h - h % factor, : w - w % factor]
