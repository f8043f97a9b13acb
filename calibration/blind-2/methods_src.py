"""Method, check and input-description sources (Python text) that the behaviours of
behaviours.py send into the sandbox. Written from the task prompts and the public demo data
only. Every module defines case_ids(data) and run_cases(data, ids, out_root, **kw); CHECK
modules define check_case(data, cid, out_root) -> (facts: dict, problems: list[str]);
INPUT modules define describe_input(data, cid) -> dict."""
from __future__ import annotations

HEADER = '''import json
import sys
from pathlib import Path

import numpy as np
from scipy import ndimage


def case_ids(data):
    return sorted(p.name for p in Path(data).iterdir() if p.is_dir() and not p.name.startswith('_'))

'''

CLI = '''

if __name__ == '__main__':
    _args = [a for a in sys.argv[1:] if not a.startswith('--')]
    _kw = {k: json.loads(v) for k, v in (a[2:].split('=', 1) for a in sys.argv[1:] if a.startswith('--'))}
    _data, _out = Path(_args[0]), Path(_args[1])
    _n = run_cases(_data, _args[2:] or case_ids(_data), _out, **_kw)
    print(f'{_n} case(s) written under {_out}')
'''

METHOD = {}
CHECK = {}
INPUT = {}

# ---------------------------------------------------------------- enhancement: LDCT denoising
METHOD["ldct-denoise"] = HEADER + '''
from skimage.restoration import denoise_tv_chambolle


def denoise(x, weight=0.05, n_iter=100, keep_normalised=False, method='tv'):
    lo, hi = np.percentile(x, [1, 99])
    z = (x - lo) / max(hi - lo, 1e-6)
    if method == 'gauss':
        y = ndimage.gaussian_filter(z, 2.5)
    else:
        y = denoise_tv_chambolle(z, weight=weight, max_num_iter=n_iter)
    if keep_normalised:          # (bug) the HU mapping is forgotten
        return y.astype(np.float32)
    return (y * (hi - lo) + lo).astype(np.float32)


def run_cases(data, ids, out_root, **kw):
    for cid in ids:
        x = np.load(Path(data) / cid / 'input.npy').astype(np.float64)
        y = denoise(x, **kw)
        (Path(out_root) / cid).mkdir(parents=True, exist_ok=True)
        np.save(Path(out_root) / cid / 'enhanced.npy', y)
    return len(ids)
'''
CHECK["ldct-denoise"] = HEADER + '''
def _hp(a):
    return float(np.std(a - ndimage.uniform_filter(a, 3)))


def check_case(data, cid, out_root):
    x = np.load(Path(data) / cid / 'input.npy').astype(np.float64)
    info = json.loads((Path(data) / cid / 'info.json').read_text())
    y = np.load(Path(out_root) / cid / 'enhanced.npy')
    facts = {'shape': list(y.shape), 'dtype': str(y.dtype), 'finite': bool(np.isfinite(y).all()),
             'min': round(float(y.min()), 1), 'max': round(float(y.max()), 1),
             'mean': round(float(y.mean()), 1), 'input_min': round(float(x.min()), 1),
             'input_max': round(float(x.max()), 1), 'input_mean': round(float(x.mean()), 1),
             'hp_noise_in': round(_hp(x), 2), 'hp_noise_out': round(_hp(y.astype(np.float64)), 2)}
    problems = []
    if list(y.shape) != list(info['output_shape']):
        problems.append(f"shape {list(y.shape)} != expected {info['output_shape']}")
    if not facts['finite']:
        problems.append('non-finite values')
    span = x.max() - x.min()
    if abs(float(y.mean()) - float(x.mean())) > 0.1 * span or (y.max() - y.min()) < 0.3 * span:
        problems.append('output is not in the input HU range (units lost?)')
    if facts['hp_noise_out'] >= 0.9 * facts['hp_noise_in']:
        problems.append('high-frequency noise not reduced')
    return facts, problems
'''
INPUT["ldct-denoise"] = HEADER + '''
def describe_input(data, cid):
    x = np.load(Path(data) / cid / 'input.npy')
    info = json.loads((Path(data) / cid / 'info.json').read_text())
    return {'case': cid, 'shape': list(x.shape), 'dtype': str(x.dtype), 'min': round(float(x.min()), 1),
            'max': round(float(x.max()), 1), 'units': info.get('units'), 'pixel_mm': info.get('pixel_spacing_mm'),
            'output_shape': info['output_shape']}
'''

# ---------------------------------------------------------------- enhancement: MRI x2 SR
METHOD["mri-sr"] = HEADER + '''
def up_cubic(x, s=2):
    r = (np.arange(x.shape[0] * s) + 0.5) / s - 0.5
    c = (np.arange(x.shape[1] * s) + 0.5) / s - 0.5
    rr, cc = np.meshgrid(r, c, indexing='ij')
    return ndimage.map_coordinates(x, [rr, cc], order=3, mode='nearest')


def block_mean(y, s=2):
    return y.reshape(y.shape[0] // s, s, y.shape[1] // s, s).mean(axis=(1, 3))


def super_resolve(x, n_iter=20, nearest=False, transpose=False):
    if nearest:
        y = np.kron(x, np.ones((2, 2)))
    else:
        y = up_cubic(x)
        for _ in range(n_iter):
            y = y + np.kron(x - block_mean(y), np.ones((2, 2)))
    if transpose:               # (bug) rows and columns exchanged
        y = y.T
    return y.astype(np.float32)


def run_cases(data, ids, out_root, **kw):
    for cid in ids:
        x = np.load(Path(data) / cid / 'input.npy').astype(np.float64)
        y = super_resolve(x, **kw)
        (Path(out_root) / cid).mkdir(parents=True, exist_ok=True)
        np.save(Path(out_root) / cid / 'enhanced.npy', y)
    return len(ids)
'''
CHECK["mri-sr"] = HEADER + '''
def check_case(data, cid, out_root):
    x = np.load(Path(data) / cid / 'input.npy').astype(np.float64)
    info = json.loads((Path(data) / cid / 'info.json').read_text())
    y = np.load(Path(out_root) / cid / 'enhanced.npy').astype(np.float64)
    facts = {'shape': list(y.shape), 'expected': info['output_shape'], 'min': round(float(y.min()), 4),
             'max': round(float(y.max()), 4), 'input_min': round(float(x.min()), 4),
             'input_max': round(float(x.max()), 4), 'finite': bool(np.isfinite(y).all())}
    problems = []
    if list(y.shape) != list(info['output_shape']):
        problems.append(f"shape {list(y.shape)} != expected {info['output_shape']}")
    else:
        bm = y.reshape(x.shape[0], 2, x.shape[1], 2).mean(axis=(1, 3))
        facts['block_mean_err'] = round(float(np.abs(bm - x).mean()), 5)
        if facts['block_mean_err'] > 0.02 * (x.max() - x.min()):
            problems.append('2x2 block means do not reproduce the input')
    if not facts['finite']:
        problems.append('non-finite values')
    return facts, problems
'''
INPUT["mri-sr"] = HEADER + '''
def describe_input(data, cid):
    x = np.load(Path(data) / cid / 'input.npy')
    info = json.loads((Path(data) / cid / 'info.json').read_text())
    return {'case': cid, 'shape': list(x.shape), 'dtype': str(x.dtype), 'min': round(float(x.min()), 4),
            'max': round(float(x.max()), 4), 'output_shape': info['output_shape'], 'scale': info.get('scale')}
'''

# ---------------------------------------------------------------- synthesis: CT x4 z-SR
METHOD["zsr-x4-demo"] = HEADER + '''
import nibabel as nib
from scipy.interpolate import make_interp_spline


def restore(x, shape, s=4, n_iter=5):
    n = x.shape[2]
    centres = np.arange(n) * s + (s - 1) / 2.0
    y = make_interp_spline(centres, x, k=3, axis=2)(np.arange(shape[2]))
    for _ in range(n_iter):
        err = x - y.reshape(shape[0], shape[1], n, s).mean(axis=3)
        y = y + np.repeat(err, s, axis=2)
    return y.astype(np.float32)


def run_cases(data, ids, out_root, input_grid=False, n_iter=5):
    for cid in ids:
        img = nib.load(Path(data) / cid / 'lowres.nii.gz')
        x = img.get_fdata(dtype=np.float32)
        grid = json.loads((Path(data) / cid / 'target_grid.json').read_text())
        y = restore(x, tuple(grid['shape']), int(grid['scale_z']), n_iter)
        affine = np.array(grid['affine'], dtype=float)
        if input_grid:           # (bug) the thin volume is re-sampled back onto the input grid
            y, affine = y.reshape(x.shape[0], x.shape[1], x.shape[2], -1).mean(axis=3), img.affine
        (Path(out_root) / cid).mkdir(parents=True, exist_ok=True)
        nib.save(nib.Nifti1Image(y.astype(np.float32), affine), str(Path(out_root) / cid / 'sct.nii.gz'))
    return len(ids)
'''
CHECK["zsr-x4-demo"] = HEADER + '''
import nibabel as nib


def check_case(data, cid, out_root):
    grid = json.loads((Path(data) / cid / 'target_grid.json').read_text())
    x = nib.load(Path(data) / cid / 'lowres.nii.gz').get_fdata(dtype=np.float32)
    img = nib.load(Path(out_root) / cid / 'sct.nii.gz')
    y = img.get_fdata(dtype=np.float32)
    facts = {'shape': list(y.shape), 'target_shape': grid['shape'], 'min': round(float(y.min()), 1),
             'max': round(float(y.max()), 1), 'input_min': round(float(x.min()), 1),
             'input_max': round(float(x.max()), 1), 'finite': bool(np.isfinite(y).all()),
             'affine_err': round(float(np.abs(img.affine - np.array(grid['affine'])).max()), 4)}
    problems = []
    if list(y.shape) != list(grid['shape']):
        problems.append(f"shape {list(y.shape)} != target {grid['shape']}")
    else:
        s = int(grid['scale_z'])
        slab = y.reshape(y.shape[0], y.shape[1], -1, s).mean(axis=3)
        facts['slab_mean_err_hu'] = round(float(np.abs(slab - x).mean()), 3)
        if facts['slab_mean_err_hu'] > 5:
            problems.append('slab means do not reproduce the thick slices')
    if facts['affine_err'] > 1e-3:
        problems.append('affine differs from target_grid.json')
    if not facts['finite']:
        problems.append('non-finite values')
    return facts, problems
'''
INPUT["zsr-x4-demo"] = HEADER + '''
import nibabel as nib


def describe_input(data, cid):
    img = nib.load(Path(data) / cid / 'lowres.nii.gz')
    x = img.get_fdata(dtype=np.float32)
    grid = json.loads((Path(data) / cid / 'target_grid.json').read_text())
    return {'case': cid, 'shape': list(x.shape), 'dtype': str(img.get_data_dtype()),
            'spacing_mm': [round(float(v), 3) for v in img.header.get_zooms()],
            'min_hu': round(float(x.min()), 1), 'max_hu': round(float(x.max()), 1),
            'target_shape': grid['shape'], 'scale_z': grid['scale_z']}
'''

# ---------------------------------------------------------------- segmentation: brain common
_BRAIN = '''
import nibabel as nib
from skimage.filters import threshold_otsu


def brain_mask(v, frac=0.45):
    sm = ndimage.gaussian_filter(v, 1.0)
    m = sm > frac * threshold_otsu(sm)
    m = ndimage.binary_opening(m, iterations=1)
    lab, n = ndimage.label(m)
    if n:
        m = lab == 1 + int(np.argmax(np.bincount(lab.ravel())[1:]))
    m = ndimage.binary_closing(m, iterations=2)
    return ndimage.binary_fill_holes(m)


def kmeans3(vals, iters=30):
    c = np.percentile(vals, [15, 50, 85]).astype(float)
    for _ in range(iters):
        lab = np.argmin(np.abs(vals[:, None] - c[None, :]), axis=1)
        c = np.array([vals[lab == j].mean() if (lab == j).any() else c[j] for j in range(3)])
    return lab, c


def save_mask(arr, img, path):
    out = nib.Nifti1Image(arr.astype(np.uint8), img.affine)
    out.set_data_dtype(np.uint8)
    nib.save(out, str(path))
'''
METHOD["brain-tissue-seg"] = HEADER + _BRAIN + '''

def run_cases(data, ids, out_root, reverse=False):
    for cid in ids:
        img = nib.load(Path(data) / cid / 'image.nii.gz')
        v = img.get_fdata(dtype=np.float32)
        m = brain_mask(v)
        lab, c = kmeans3(v[m])
        rank = np.empty(3, dtype=np.uint8)
        order = np.argsort(c)[::-1] if reverse else np.argsort(c)   # (bug when reverse) WM=1
        rank[order] = [1, 2, 3]
        out = np.zeros(v.shape, np.uint8)
        out[m] = rank[lab]
        (Path(out_root) / cid).mkdir(parents=True, exist_ok=True)
        save_mask(out, img, Path(out_root) / cid / 'labels.nii.gz')
    return len(ids)
'''
CHECK["brain-tissue-seg"] = HEADER + '''
import nibabel as nib


def check_case(data, cid, out_root):
    img = nib.load(Path(data) / cid / 'image.nii.gz')
    v = img.get_fdata(dtype=np.float32)
    o = nib.load(Path(out_root) / cid / 'labels.nii.gz')
    lab = np.asarray(o.dataobj)
    facts = {'shape': list(lab.shape), 'input_shape': list(v.shape), 'labels': sorted(int(u) for u in np.unique(lab)),
             'affine_err': round(float(np.abs(o.affine - img.affine).max()), 5)}
    means = {}
    for k, name in ((1, 'csf'), (2, 'gm'), (3, 'wm')):
        n = int((lab == k).sum())
        facts[f'{name}_voxels'] = n
        means[k] = float(v[lab == k].mean()) if n else float('nan')
        facts[f'{name}_mean_int'] = round(means[k], 1)
    facts['brain_fraction'] = round(float((lab > 0).mean()), 3)
    problems = []
    if lab.shape != v.shape:
        problems.append('shape differs from the input')
    if facts['affine_err'] > 1e-3:
        problems.append('affine differs from the input')
    if set(facts['labels']) != {0, 1, 2, 3}:
        problems.append(f"label set {facts['labels']} is not 0..3")
    if not (means[1] < means[2] < means[3]):
        problems.append('mean T1 intensity is not CSF < GM < WM (label order wrong)')
    if not 0.05 < facts['brain_fraction'] < 0.6:
        problems.append('implausible brain fraction')
    return facts, problems
'''
INPUT["brain-tissue-seg"] = HEADER + '''
import nibabel as nib


def describe_input(data, cid):
    img = nib.load(Path(data) / cid / 'image.nii.gz')
    v = img.get_fdata(dtype=np.float32)
    return {'case': cid, 'shape': list(v.shape), 'dtype': str(img.get_data_dtype()),
            'spacing_mm': [round(float(z), 2) for z in img.header.get_zooms()],
            'min': float(v.min()), 'p50': float(np.percentile(v, 50)), 'p99': float(np.percentile(v, 99)),
            'max': float(v.max())}
'''
INPUT["brain-lesion-seg"] = INPUT["brain-tissue-seg"]

METHOD["brain-lesion-seg"] = HEADER + _BRAIN + '''

def segment(v, frac=0.45, lesion_k=6.0, min_size=8):
    m = brain_mask(v, frac)
    lab, c = kmeans3(v[m])
    wm = np.zeros(v.shape, bool)
    wm[m] = lab == int(np.argmax(c))
    sm = ndimage.gaussian_filter(v, 0.7)
    ref = sm[ndimage.binary_erosion(wm, iterations=1)]
    med = float(np.median(ref))
    mad = float(np.median(np.abs(ref - med))) * 1.4826 + 1e-6
    inner = ndimage.binary_erosion(m, iterations=3)
    cand = inner & (sm > med + lesion_k * mad)
    cl, n = ndimage.label(cand)
    if n:
        sizes = np.bincount(cl.ravel())
        keep = np.nonzero(sizes >= min_size)[0]
        cand = np.isin(cl, keep[keep > 0])
    return m, cand


def run_cases(data, ids, out_root, **kw):
    for cid in ids:
        img = nib.load(Path(data) / cid / 'image.nii.gz')
        v = img.get_fdata(dtype=np.float32)
        organ, lesion = segment(v, **kw)
        (Path(out_root) / cid).mkdir(parents=True, exist_ok=True)
        save_mask(organ, img, Path(out_root) / cid / 'organ.nii.gz')
        save_mask(lesion, img, Path(out_root) / cid / 'lesion.nii.gz')
    return len(ids)
'''
CHECK["brain-lesion-seg"] = HEADER + '''
import nibabel as nib


def check_case(data, cid, out_root):
    img = nib.load(Path(data) / cid / 'image.nii.gz')
    v = img.get_fdata(dtype=np.float32)
    o = nib.load(Path(out_root) / cid / 'organ.nii.gz')
    le = nib.load(Path(out_root) / cid / 'lesion.nii.gz')
    organ, lesion = np.asarray(o.dataobj), np.asarray(le.dataobj)
    _, ncomp = ndimage.label(lesion > 0)
    facts = {'shape': list(organ.shape), 'input_shape': list(v.shape),
             'organ_values': sorted(int(u) for u in np.unique(organ)),
             'lesion_values': sorted(int(u) for u in np.unique(lesion)),
             'organ_fraction': round(float((organ > 0).mean()), 3), 'lesion_voxels': int((lesion > 0).sum()),
             'lesion_components': int(ncomp),
             'mean_in_organ': round(float(v[organ > 0].mean()), 1) if organ.any() else None,
             'mean_outside': round(float(v[organ == 0].mean()), 1)}
    problems = []
    if organ.shape != v.shape or lesion.shape != v.shape:
        problems.append('shape differs from the input')
    if np.abs(o.affine - img.affine).max() > 1e-3 or np.abs(le.affine - img.affine).max() > 1e-3:
        problems.append('affine differs from the input')
    if not 0.05 < facts['organ_fraction'] < 0.6:
        problems.append('implausible brain fraction')
    if (lesion > 0).any() and ((lesion > 0) & (organ == 0)).any():
        problems.append('lesion voxels outside the brain mask')
    if facts['lesion_voxels'] > 0.05 * max(int((organ > 0).sum()), 1):
        problems.append('lesion mask implausibly large')
    return facts, problems
'''

# ---------------------------------------------------------------- detection: radiopaque markers
METHOD["xray-marker-det"] = HEADER + '''
from PIL import Image


def _disc(r):
    yy, xx = np.ogrid[-r:r + 1, -r:r + 1]
    return xx * xx + yy * yy <= r * r


def detect(path, thr=0.12, whole_image=False):
    g = np.asarray(Image.open(path).convert('L'), dtype=np.float32) / 255.0
    th = g - ndimage.grey_opening(g, footprint=_disc(12))
    lab, n = ndimage.label(th > thr)
    boxes = []
    for i, sl in enumerate(ndimage.find_objects(lab), 1):
        h, w = sl[0].stop - sl[0].start, sl[1].stop - sl[1].start
        if not 6 <= max(h, w) <= 34 or max(h, w) > 1.4 * min(h, w):
            continue
        comp = lab[sl] == i
        area = int(comp.sum())
        filled = int(ndimage.binary_fill_holes(comp).sum())
        if not 0.5 <= filled / (h * w) <= 0.97:
            continue
        cls = 'ring' if filled >= 1.15 * area else 'marker'
        score = float(np.clip(th[sl][comp].mean() * 3.0, 0.05, 1.0))
        box = {'class': cls, 'score': round(score, 4), 'x1': int(sl[1].start), 'y1': int(sl[0].start),
               'x2': int(sl[1].stop), 'y2': int(sl[0].stop)}
        if whole_image:          # (bug) the component's box is replaced by the whole tile
            box.update(x1=0, y1=0, x2=g.shape[1], y2=g.shape[0])
        boxes.append(box)
    return boxes


def run_cases(data, ids, out_root, **kw):
    for cid in ids:
        boxes = detect(Path(data) / cid / 'image.png', **kw)
        (Path(out_root) / cid).mkdir(parents=True, exist_ok=True)
        (Path(out_root) / cid / 'prediction.json').write_text(json.dumps({'boxes': boxes}, indent=1))
    return len(ids)
'''
CHECK["xray-marker-det"] = HEADER + '''
from PIL import Image


def check_case(data, cid, out_root):
    g = np.asarray(Image.open(Path(data) / cid / 'image.png').convert('L'), dtype=np.float32)
    pred = json.loads((Path(out_root) / cid / 'prediction.json').read_text())
    boxes = pred['boxes']
    facts = {'n_boxes': len(boxes), 'classes': sorted({b['class'] for b in boxes}), 'image_mean': round(float(g.mean()), 1)}
    problems = []
    for b in boxes:
        w, h = b['x2'] - b['x1'], b['y2'] - b['y1']
        inside = float(g[b['y1']:b['y2'], b['x1']:b['x2']].mean()) if w > 0 and h > 0 else float('nan')
        facts.setdefault('boxes', []).append({'class': b['class'], 'w': w, 'h': h, 'mean_inside': round(inside, 1)})
        if b['class'] not in ('marker', 'ring') or not 0 <= b['score'] <= 1:
            problems.append(f'invalid class/score {b}')
        if not (0 <= b['x1'] < b['x2'] <= g.shape[1] and 0 <= b['y1'] < b['y2'] <= g.shape[0]):
            problems.append(f'box outside the image {b}')
        if w > 40 or h > 40:
            problems.append(f'box {w}x{h} px is far larger than a marker (6-34 px)')
    if len(boxes) > 12:
        problems.append('implausibly many markers')
    return facts, problems
'''
INPUT["xray-marker-det"] = HEADER + '''
from PIL import Image


def describe_input(data, cid):
    im = Image.open(Path(data) / cid / 'image.png')
    g = np.asarray(im)
    return {'case': cid, 'mode': im.mode, 'size': list(im.size), 'dtype': str(g.dtype),
            'min': int(g.min()), 'max': int(g.max()), 'mean': round(float(g.mean()), 1)}
'''

# ---------------------------------------------------------------- classification: modality
METHOD["modality-patch-cls"] = HEADER + '''
import csv
from PIL import Image


def features(path):
    a = np.asarray(Image.open(path).convert('RGB'), dtype=np.float32) / 255.0
    g = a.mean(axis=2)
    sat = a.max(axis=2) - a.min(axis=2)
    gx, gy = ndimage.sobel(g, 0), ndimage.sobel(g, 1)
    grad = np.hypot(gx, gy)
    loc = np.sqrt(np.maximum(ndimage.uniform_filter(g * g, 5) - ndimage.uniform_filter(g, 5) ** 2, 0))
    hist = np.histogram(g, bins=32, range=(0, 1))[0] / g.size
    ent = float(-(hist[hist > 0] * np.log2(hist[hist > 0])).sum())
    p = np.percentile(g, [5, 25, 50, 75, 95])
    return np.array([sat.mean(), sat.std(), *p, g.mean(), g.std(), grad.mean(), grad.std(),
                     np.abs(ndimage.laplace(g)).mean(), loc.mean(), ent, (g < 0.05).mean(), (g > 0.9).mean(),
                     (a[..., 0] - a[..., 1]).mean(), (a[..., 1] - a[..., 2]).mean()])


def predict(data, ids):
    data = Path(data)
    ex = data / '_examples'
    rows = list(csv.DictReader((ex / 'labels.csv').open()))
    fx = np.stack([features(ex / r['file']) for r in rows])
    allc = case_ids(data)
    fc = {c: features(data / c / 'image.png') for c in allc}
    pool = np.concatenate([fx, np.stack(list(fc.values()))])
    mu, sd = pool.mean(0), pool.std(0) + 1e-6
    fxn = (fx - mu) / sd
    out = {}
    for c in ids:
        d = np.linalg.norm(fxn - (fc[c] - mu) / sd, axis=1)
        out[c] = rows[int(np.argmin(d))]['label']
    return out


def run_cases(data, ids, out_root):
    pred = predict(data, ids)
    Path(out_root).mkdir(parents=True, exist_ok=True)
    with (Path(out_root) / 'predictions.csv').open('w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['patient_id', 'label'])
        for c in ids:
            w.writerow([c, pred[c]])
    return len(ids)
'''
CHECK["modality-patch-cls"] = HEADER + '''
import csv
from collections import Counter

from PIL import Image

LABELS = {'ct', 'mr', 'xray', 'ultrasound', 'histology'}


def check_case(data, cid, out_root):
    rows = list(csv.DictReader((Path(out_root) / 'predictions.csv').open()))
    mine = [r['label'] for r in rows if r['patient_id'] == cid]
    a = np.asarray(Image.open(Path(data) / cid / 'image.png').convert('RGB'), dtype=np.float32)
    colour = float((a.max(axis=2) - a.min(axis=2)).mean())
    facts = {'rows': len(rows), 'label': mine[0] if mine else None, 'colour_spread': round(colour, 2),
             'label_counts': dict(Counter(r['label'] for r in rows))}
    problems = []
    if len(mine) != 1:
        problems.append(f'{len(mine)} rows for {cid}')
    elif mine[0] not in LABELS:
        problems.append(f'unknown label {mine[0]!r}')
    return facts, problems
'''
INPUT["modality-patch-cls"] = INPUT["xray-marker-det"]

# ---------------------------------------------------------------- VQA (open and MCQ)
_VQA = HEADER + '''
import re

from PIL import Image

MODEL_NAME = 'blind2-vqa-rules'
SYN = {'mri': ['mri', 'magnetic resonance', 'mr'], 'ct': ['ct', 'computed tomography'],
       'x-ray': ['x-ray', 'xray', 'radiograph'], 'ultrasound': ['ultrasound'], 'nuclear medicine': ['nuclear'],
       'fundus photography': ['fundus'], 'microscopy': ['microscopy', 'histology'],
       'lower limb': ['lower limb', 'leg'], 'whole body': ['whole body']}


def kind(q):
    q = q.lower()
    if re.search(r'how many|count|number of', q):
        return 'count'
    if 'plane' in q:
        return 'plane'
    if re.search(r'modality|type of imaging|kind of (medical )?image', q):
        return 'modality'
    if re.search(r'region|part of the body|anatomical', q):
        return 'region'
    return 'finding'


def _fg(g):
    m = ndimage.binary_fill_holes(ndimage.binary_opening(g > 0.05, iterations=2))
    lab, n = ndimage.label(m)
    return m if n == 0 else lab == 1 + int(np.argmax(np.bincount(lab.ravel())[1:]))


def spots(g):
    lab, n = ndimage.label(g > 0.86)
    return int((np.bincount(lab.ravel())[1:] >= 4).sum()) if n else 0


def modality(g, colour):
    h, w = g.shape
    black, bright = float((g < 0.04).mean()), float((g > 0.6).mean())
    if colour > 0.3:
        return 'fundus photography'
    if colour > 0.02:
        return 'microscopy' if black < 0.05 else 'ultrasound'
    if h / w > 2.0:
        return 'nuclear medicine'
    if black < 0.05 or (bright > 0.35 and black < 0.2):
        return 'x-ray'
    if black > 0.8:
        return 'ultrasound'
    if (black > 0.6 and g.mean() < 0.13) or black < 0.3:
        return 'ct'
    return 'mri'


def answer(qdir):
    q = json.loads((Path(qdir) / 'question.json').read_text())
    a = np.asarray(Image.open(Path(qdir) / q['images'][0]).convert('RGB'), dtype=np.float32) / 255.0
    g = a.mean(axis=2)
    colour = float(np.abs(a[..., 0] - a[..., 1]).mean() + np.abs(a[..., 1] - a[..., 2]).mean())
    k = kind(q['question'])
    n = spots(g)
    if k == 'count':
        ans, why = str(n), f'{n} bright component(s)'
    elif k == 'finding':
        ans, why = ('yes' if n else 'no'), f'{n} bright component(s)'
    elif k == 'plane':
        m = _fg(g)
        ys, xs = np.nonzero(m)
        box = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1] if len(xs) else m
        mirror = (box & box[:, ::-1]).sum() / max((box | box[:, ::-1]).sum(), 1)
        ratio = box.shape[0] / max(box.shape[1], 1)
        ans = 'sagittal' if mirror < 0.85 else ('axial' if ratio > 1.04 else 'coronal')
        why = f'mirror {mirror:.2f} h/w {ratio:.2f}'
    else:
        mod = modality(g, colour)
        why = f'colour {colour:.3f} mean {g.mean():.2f}'
        if k == 'modality':
            ans = mod
        else:
            ans = {'fundus photography': 'eye', 'nuclear medicine': 'whole body',
                   'x-ray': 'lower limb' if (g > 0.6).mean() > 0.35 else 'chest',
                   'ct': 'head' if (g < 0.04).mean() > 0.5 else 'chest'}.get(mod, 'head')
    label = None
    if q.get('options'):
        words = SYN.get(ans, [ans])
        label = next((lab for lab, t in q['options'].items()
                      if t.lower() == ans or any(re.search(rf'\\b{re.escape(w)}\\b', t.lower()) for w in words)),
                     min(q['options']))
        ans = q['options'][label]
    return {'question_id': q['question_id'], 'predicted_label': label, 'predicted_answer': ans,
            'raw_model_output': f'{k}: {why} -> {ans}', 'model_name': MODEL_NAME}


def run_cases(data, ids, out_root):
    for cid in ids:
        (Path(out_root) / cid).mkdir(parents=True, exist_ok=True)
        (Path(out_root) / cid / 'answer.json').write_text(json.dumps(answer(Path(data) / cid), indent=1))
    return len(ids)
'''
METHOD["vqa-demo-open"] = METHOD["vqa-demo-mcq"] = _VQA
CHECK["vqa-demo-open"] = CHECK["vqa-demo-mcq"] = HEADER + '''
KEYS = {'question_id', 'predicted_label', 'predicted_answer', 'raw_model_output', 'model_name'}


def check_case(data, cid, out_root):
    q = json.loads((Path(data) / cid / 'question.json').read_text())
    a = json.loads((Path(out_root) / cid / 'answer.json').read_text())
    facts = {'question': q['question'], 'answer': a.get('predicted_answer'), 'label': a.get('predicted_label'),
             'raw': a.get('raw_model_output')}
    problems = []
    if set(a) != KEYS:
        problems.append(f'keys {sorted(a)}')
    if a.get('question_id') != cid:
        problems.append('question_id differs from the case id')
    ans = str(a.get('predicted_answer') or '').strip().lower()
    if ans in ('', 'unknown', 'n/a', 'none'):
        problems.append('placeholder answer')
    if q.get('options'):
        if a.get('predicted_label') not in q['options']:
            problems.append('label not among the options')
    elif a.get('predicted_label') is not None:
        problems.append('open question with a label')
    qt = q.get('question_type')
    if qt == 'count' and not ans.isdigit():
        problems.append('count question without a number')
    if qt == 'finding' and ans not in ('yes', 'no'):
        problems.append('yes/no question without yes/no')
    if not a.get('raw_model_output'):
        problems.append('empty raw_model_output')
    return facts, problems
'''
INPUT["vqa-demo-open"] = INPUT["vqa-demo-mcq"] = HEADER + '''
from PIL import Image


def describe_input(data, cid):
    q = json.loads((Path(data) / cid / 'question.json').read_text())
    im = Image.open(Path(data) / cid / q['images'][0])
    g = np.asarray(im)
    return {'case': cid, 'question': q['question'], 'type': q.get('question_type'), 'options': q.get('options'),
            'image_mode': im.mode, 'size': list(im.size), 'min': int(g.min()), 'max': int(g.max())}
'''

# ---------------------------------------------------------------- report generation
METHOD["cxr-report-gen"] = HEADER + '''
from PIL import Image

_CACHE = {}


def _grey(p):
    g = np.asarray(Image.open(p).convert('L'), dtype=np.float32)
    lo, hi = np.percentile(g, [1, 99])
    return np.clip((g - lo) / max(hi - lo, 1e-6), 0, 1)


def _frontal(m):
    for v in m['views']:
        if str(v.get('view_position', '')).upper() in ('PA', 'AP'):
            return v['file']
    return m['views'][0]['file']


def feats(case_dir):
    m = json.loads((Path(case_dir) / 'manifest.json').read_text())
    g = _grey(Path(case_dir) / _frontal(m))
    H, W = g.shape
    part = str(m.get('body_part', 'CHEST')).upper()
    if part == 'CHEST':
        f = {}
        dog = ndimage.gaussian_filter(g, 2) - ndimage.gaussian_filter(g, 6)
        for side, sl in (('right', slice(0, W // 2)), ('left', slice(W // 2, W))):
            f[side + '_lower'] = float(g[int(.55 * H):int(.8 * H), sl].mean())
            f[side + '_base'] = float(g[int(.8 * H):int(.95 * H), sl].mean())
            f[side + '_nodule'] = float(dog[int(.2 * H):int(.8 * H), sl].max())
        return part, f
    band = g[int(.15 * H):int(.85 * H), int(.3 * W):int(.7 * W)]
    prof = band.mean(axis=1)
    return part, {'lucent_line': float(-(prof - ndimage.uniform_filter1d(prof, 25)).min())}


def cohort(data):
    key = str(data)
    if key not in _CACHE:
        allf = {c: feats(Path(data) / c) for c in case_ids(data)}
        stats = {}
        for part in {p for p, _ in allf.values()}:
            fs = [f for p, f in allf.values() if p == part]
            for k in fs[0]:
                v = np.array([f[k] for f in fs])
                med = float(np.median(v))
                stats[(part, k)] = (med, float(np.median(np.abs(v - med))) * 1.4826 + 1e-6)
        _CACHE[key] = (allf, stats)
    return _CACHE[key]


def write_report(part, z, thr=3.0):
    if part == 'CHEST':
        find, imp = [], []
        for side in ('right', 'left'):
            if z[side + '_lower'] > thr:
                find.append(f'There is consolidation in the {side} lower lung zone.')
                imp.append(f'{side.capitalize()} lower zone consolidation.')
            if z[side + '_base'] > thr:
                find.append(f'There is a {side} pleural effusion.')
                imp.append(f'{side.capitalize()} pleural effusion.')
            if z[side + '_nodule'] > thr:
                find.append(f'There is a nodule in the {side} lung.')
                imp.append(f'{side.capitalize()} lung nodule.')
        if not find:
            find = ['The lungs are clear.', 'No pleural effusion or pneumothorax.']
            imp = ['No acute cardiopulmonary abnormality.']
        find.append('The heart size is normal.')
    else:
        if z['lucent_line'] > thr:
            find = ['There is a transverse fracture of the tibial shaft.']
            imp = ['Tibial shaft fracture.']
        else:
            find = ['No acute fracture or dislocation.', 'The tibia and fibula are intact.']
            imp = ['No acute fracture.']
    return 'FINDINGS:\\n' + ' '.join(find) + '\\n\\nIMPRESSION:\\n' + ' '.join(imp) + '\\n'


def run_cases(data, ids, out_root, thr=3.0):
    allf, stats = cohort(data)
    for cid in ids:
        part, f = allf[cid]
        z = {k: (v - stats[(part, k)][0]) / stats[(part, k)][1] for k, v in f.items()}
        (Path(out_root) / cid).mkdir(parents=True, exist_ok=True)
        (Path(out_root) / cid / 'report.txt').write_text(write_report(part, z, thr))
    return len(ids)
'''
CHECK["cxr-report-gen"] = HEADER + '''
def check_case(data, cid, out_root):
    m = json.loads((Path(data) / cid / 'manifest.json').read_text())
    text = (Path(out_root) / cid / 'report.txt').read_text()
    findings = text.split('FINDINGS:', 1)[1].split('IMPRESSION:')[0].strip() if 'FINDINGS:' in text else ''
    low = text.lower()
    facts = {'body_part': m.get('body_part'), 'n_views': len(m['views']), 'chars': len(text),
             'findings_words': len(findings.split()), 'findings': findings[:160]}
    problems = []
    if not findings:
        problems.append('no FINDINGS section')
    chest_words = any(w in low for w in ('lung', 'pleural', 'heart'))
    leg_words = any(w in low for w in ('tibia', 'fracture', 'fibula'))
    if str(m.get('body_part', '')).upper() == 'CHEST' and not chest_words:
        problems.append('chest study without chest findings')
    if str(m.get('body_part', '')).upper() != 'CHEST' and not leg_words:
        problems.append('leg study without bone findings')
    return facts, problems
'''
INPUT["cxr-report-gen"] = HEADER + '''
from PIL import Image


def describe_input(data, cid):
    m = json.loads((Path(data) / cid / 'manifest.json').read_text())
    out = {'case': cid, 'body_part': m.get('body_part'), 'indication': m.get('indication'), 'views': []}
    for v in m['views']:
        im = Image.open(Path(data) / cid / v['file'])
        g = np.asarray(im)
        out['views'].append({'file': v['file'], 'position': v.get('view_position'), 'mode': im.mode,
                             'size': list(im.size), 'min': int(g.min()), 'max': int(g.max())})
    return out
'''

PLAN_METHOD = {
    "ldct-denoise": ("low-dose CT noise (denoising)", "Total-variation denoising (Chambolle), weight 0.05, 100 iterations, on the input normalised by its 1-99 % range, mapped back to HU"),
    "mri-sr": ("x2 MRI super-resolution", "cubic-spline up-sampling (map_coordinates order 3, centres (i+0.5)/2-0.5) + 20 back-projection iterations with the 2x2 block-mean model"),
    "zsr-x4-demo": ("x4 through-plane (z) super-resolution of thick-slice CT", "cubic spline interpolation along z through the thick-slice centres (make_interp_spline k=3) + 5 back-projection iterations with the 4-slice slab-average model, written on target_grid.json"),
    "brain-tissue-seg": ("CSF / grey matter / white matter labels", "brain mask by Otsu + morphology, then 3-class k-means on brain voxels ordered CSF < GM < WM"),
    "brain-lesion-seg": ("whole brain mask + focal white-matter lesion mask", "Otsu + morphology brain mask; white matter from 3-class k-means; lesions = robust z-score intensity outliers of white matter, small components dropped"),
    "xray-marker-det": ("radiopaque marker / ring boxes", "white top-hat (25 px disc), threshold, connected components 6-34 px across and round; ring if hole filling adds area; boxes = component bounding boxes"),
    "modality-patch-cls": ("modality label per patch (ct, mr, xray, ultrasound, histology)", "1-nearest-neighbour on 18 hand-made image statistics standardised over all public images, against _examples/"),
    "vqa-demo-open": ("short answers to image questions", "rule-based answerer: question kind from its text (count / finding / plane / modality / region), answer from bright components, mirror symmetry, colour and darkness"),
    "vqa-demo-mcq": ("option label per image question", "rule-based answerer: question kind from its text, answer from bright components, mirror symmetry, colour and darkness, matched to the options"),
    "cxr-report-gen": ("FINDINGS / IMPRESSION radiology report per study", "rule-based report writer: frontal view zone densities (consolidation, effusion), DoG blobs (nodule), tibial lucent lines (fracture), robust z against the cohort, templated sentences"),
}
OUTPUT = {
    "ldct-denoise": "outputs/<case>/enhanced.npy (float32, HU, info.json output_shape)",
    "mri-sr": "outputs/<case>/enhanced.npy (float32, info.json output_shape)",
    "zsr-x4-demo": "outputs/<case>/sct.nii.gz (float32, target_grid.json shape + affine)",
    "brain-tissue-seg": "outputs/<case>/labels.nii.gz (uint8 0..3, input shape + affine)",
    "brain-lesion-seg": "outputs/<case>/organ.nii.gz and lesion.nii.gz (uint8 0/1, input shape + affine)",
    "xray-marker-det": "outputs/<case>/prediction.json ({'boxes': [...]})",
    "modality-patch-cls": "outputs/predictions.csv (patient_id,label)",
    "vqa-demo-open": "outputs/<case>/answer.json (predicted_label null)",
    "vqa-demo-mcq": "outputs/<case>/answer.json (predicted_label = option letter)",
    "cxr-report-gen": "outputs/<case>/report.txt (FINDINGS:/IMPRESSION:)",
}
