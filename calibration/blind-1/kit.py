"""Per-task building blocks for the blind-1 behaviours: the lite tier's named method for each
task, written as the source of a module the agent saves as a file (or pastes inline), plus an
honest input check and an honest value-level look at one case's output.

Written from the task prompts (`automedbench prompt TASK --tier lite`) and the public data only.

Every method module exposes:
    PARAMS                      the lite tier's parameters
    cases()                     the case folders under the public data dir (not `_examples`)
    predict(case_dir, **p)      the result for one case, in memory
    write(case_id, result, out) that result in the contract's format under `out`
    run(out, ids=None, **p)     predict + write for the given case ids (all when None)
Classification writes ONE file, `out/predictions.csv`, with a row per processed case.
"""
from __future__ import annotations

import textwrap

TASKS = ["ldct-denoise", "brain-lesion-seg", "xray-marker-det", "modality-patch-cls",
         "vqa-demo-open", "vqa-demo-mcq", "cxr-report-gen", "zsr-x4-demo"]

# the file each case gets (classification: the one cohort file)
OUT_FILE = {"ldct-denoise": "enhanced.npy", "brain-lesion-seg": "organ.nii.gz",
            "xray-marker-det": "prediction.json", "modality-patch-cls": "predictions.csv",
            "vqa-demo-open": "answer.json", "vqa-demo-mcq": "answer.json",
            "cxr-report-gen": "report.txt", "zsr-x4-demo": "sct.nii.gz"}

_COMMON = '''\
import sys, os, json, pathlib
import numpy as np
DATA = pathlib.Path(@DATA@)


def cases():
    return sorted(p for p in DATA.iterdir() if p.is_dir() and not p.name.startswith('_'))


def run(out, ids=None, **params):
    p = dict(PARAMS); p.update(params)
    todo = [c for c in cases() if ids is None or c.name in ids]
    for c in todo:
        write(c.name, predict(c, **p), pathlib.Path(out))
    return [c.name for c in todo]


def _parse(argv):
    out, ids, params = argv[0], [], {}
    for a in argv[1:]:
        if '=' in a:
            k, v = a.split('=', 1)
            params[k] = json.loads(v)
        else:
            ids.append(a)
    return out, (ids or None), params


if __name__ == '__main__':
    out, ids, params = _parse(sys.argv[1:])
    done = run(out, ids, **params)
    print('wrote', len(done), 'case(s) to', out)
'''

_LDCT = '''\
PARAMS = {'weight': 0.05, 'n_iter': 100, 'map_back': True}


def _grad(u):
    gx = np.zeros_like(u); gy = np.zeros_like(u)
    gx[:-1] = u[1:] - u[:-1]
    gy[:, :-1] = u[:, 1:] - u[:, :-1]
    return gx, gy


def _div(px, py):
    d = np.zeros_like(px)
    d[0] = px[0]; d[1:-1] = px[1:-1] - px[:-2]; d[-1] = -px[-2]
    d[:, 0] += py[:, 0]; d[:, 1:-1] += py[:, 1:-1] - py[:, :-2]; d[:, -1] += -py[:, -2]
    return d


def tv_chambolle(f, weight, n_iter):
    """Chambolle's (2004) dual projection algorithm for the ROF model."""
    px = np.zeros_like(f); py = np.zeros_like(f); tau = 0.25
    for _ in range(int(n_iter)):
        gx, gy = _grad(_div(px, py) - f / weight)
        norm = np.sqrt(gx ** 2 + gy ** 2)
        px = (px + tau * gx) / (1.0 + tau * norm)
        py = (py + tau * gy) / (1.0 + tau * norm)
    return f - weight * _div(px, py)


def predict(case_dir, weight=0.05, n_iter=100, map_back=True):
    x = np.load(case_dir / 'input.npy').astype(np.float64)
    lo, hi = np.percentile(x, [1, 99])
    u = tv_chambolle((x - lo) / (hi - lo), weight, n_iter)
    return (u * (hi - lo) + lo) if map_back else u


def write(case_id, result, out):
    (out / case_id).mkdir(parents=True, exist_ok=True)
    np.save(out / case_id / 'enhanced.npy', result.astype(np.float32))
'''

_SEG = '''\
import nibabel as nib
from scipy import ndimage as ndi
PARAMS = {'z_thr': 3.5, 'asym_thr': 2.5, 'min_vox': 8, 'lesion_everywhere': False}


def otsu(v, bins=256):
    h, e = np.histogram(v, bins=bins)
    c = (e[:-1] + e[1:]) / 2
    w0 = np.cumsum(h); w1 = w0[-1] - w0
    m0 = np.cumsum(h * c) / np.maximum(w0, 1)
    m1 = (np.sum(h * c) - np.cumsum(h * c)) / np.maximum(w1, 1)
    return c[np.argmax(w0 * w1 * (m0 - m1) ** 2)]


def _largest(mask):
    lab, n = ndi.label(mask)
    if n == 0:
        return mask
    sizes = ndi.sum(mask, lab, range(1, n + 1))
    return lab == (1 + int(np.argmax(sizes)))


def predict(case_dir, z_thr=3.5, asym_thr=2.5, min_vox=8, lesion_everywhere=False):
    img = nib.load(case_dir / 'image.nii.gz')
    x = img.get_fdata().astype(np.float32)
    brain = x > otsu(x[x > np.percentile(x, 1)])
    brain = ndi.binary_opening(brain, iterations=2)
    brain = _largest(brain)
    brain = ndi.binary_closing(brain, iterations=2)
    brain = ndi.binary_fill_holes(brain)
    # bias correction: divide by a heavily smoothed in-brain intensity
    bx = np.where(brain, x, 0).astype(np.float32)
    field = ndi.gaussian_filter(bx, 8) / np.maximum(ndi.gaussian_filter(brain.astype(np.float32), 8), 1e-3)
    xc = np.where(brain, x / np.maximum(field, 1e-3), 0)
    core = ndi.binary_erosion(brain, iterations=3)
    wm = core & (xc > otsu(xc[core]))
    med = np.median(xc[wm]); mad = 1.4826 * np.median(np.abs(xc[wm] - med)) + 1e-6
    z = (xc - med) / mad
    asym = np.abs(xc - xc[::-1]) / mad          # left-right: the first voxel axis
    lesion = core & (np.abs(z) > z_thr) & (asym > asym_thr)
    lesion = ndi.binary_opening(lesion)
    lab, n = ndi.label(lesion)
    if n:
        sizes = ndi.sum(lesion, lab, range(1, n + 1))
        lesion = np.isin(lab, 1 + np.flatnonzero(sizes >= min_vox))
    if lesion_everywhere:
        lesion = core & (xc > np.median(xc[core]))
    return brain.astype(np.uint8), lesion.astype(np.uint8), img.affine


def write(case_id, result, out):
    organ, lesion, affine = result
    d = out / case_id; d.mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(organ, affine), str(d / 'organ.nii.gz'))
    nib.save(nib.Nifti1Image(lesion, affine), str(d / 'lesion.nii.gz'))
'''

_DET = '''\
from PIL import Image
from scipy import ndimage as ndi
PARAMS = {'thr': 40.0, 'min_px': 6, 'max_px': 34}


def _disk(r):
    y, x = np.mgrid[-r:r + 1, -r:r + 1]
    return x * x + y * y <= r * r


def predict(case_dir, thr=40.0, min_px=6, max_px=34):
    im = np.asarray(Image.open(case_dir / 'image.png').convert('L'), dtype=np.float32)
    th = ndi.white_tophat(im, footprint=_disk(12))          # 25 px disc
    mask = th > thr
    lab, n = ndi.label(mask)
    boxes = []
    for i, sl in enumerate(ndi.find_objects(lab), 1):
        comp = lab[sl] == i
        h = sl[0].stop - sl[0].start; w = sl[1].stop - sl[1].start
        if not (min_px <= h <= max_px and min_px <= w <= max_px):
            continue
        if not (0.6 <= h / w <= 1.67) or comp.sum() < 0.3 * h * w:
            continue
        filled = ndi.binary_fill_holes(comp)
        ring = filled.sum() > 1.15 * comp.sum()
        score = float(min(1.0, th[sl][comp].mean() / 120.0))
        boxes.append({'class': 'ring' if ring else 'marker', 'score': round(score, 4),
                      'x1': int(sl[1].start), 'y1': int(sl[0].start),
                      'x2': int(sl[1].stop), 'y2': int(sl[0].stop)})
    return {'boxes': boxes}


def write(case_id, result, out):
    (out / case_id).mkdir(parents=True, exist_ok=True)
    (out / case_id / 'prediction.json').write_text(json.dumps(result))
'''

_CLS = '''\
import csv
from PIL import Image
from scipy import ndimage as ndi
PARAMS = {'label_names': True}
LABELS = ['ct', 'mr', 'xray', 'ultrasound', 'histology']


def features(path):
    rgb = np.asarray(Image.open(path).convert('RGB'), dtype=np.float32) / 255.0
    g = rgb.mean(axis=2)
    mx, mn = rgb.max(axis=2), rgb.min(axis=2)
    sat = (mx - mn) / np.maximum(mx, 1e-3)
    gy, gx = np.gradient(g)
    grad = np.hypot(gx, gy)
    local_sd = np.sqrt(np.maximum(ndi.uniform_filter(g * g, 5) - ndi.uniform_filter(g, 5) ** 2, 0))
    hist = np.histogram(g, bins=32, range=(0, 1))[0] / g.size
    ent = -np.sum(hist[hist > 0] * np.log2(hist[hist > 0]))
    p = np.percentile(g, [5, 25, 50, 75, 95])
    return np.array([sat.mean(), sat.std(), *p, g.mean(), g.std(), grad.mean(),
                     ndi.laplace(g).var(), local_sd.mean(), ent, (g < 0.08).mean(), (g > 0.92).mean(),
                     (rgb[..., 0] - rgb[..., 2]).mean(), g.std() / (g.mean() + 1e-3),
                     np.abs(gx).mean() / (np.abs(gy).mean() + 1e-6)])


def _bank():
    ex = DATA / '_examples'
    rows = list(csv.DictReader(open(ex / 'labels.csv')))
    fx = np.stack([features(ex / r['file']) for r in rows])
    fc = np.stack([features(c / 'image.png') for c in cases()])
    allf = np.concatenate([fx, fc])
    mu, sd = allf.mean(0), allf.std(0) + 1e-6
    return (fx - mu) / sd, [r['label'] for r in rows], mu, sd


_CACHE = {}


def predict(case_dir, label_names=True):
    if 'bank' not in _CACHE:
        _CACHE['bank'] = _bank()
    fx, labels, mu, sd = _CACHE['bank']
    f = (features(case_dir / 'image.png') - mu) / sd
    lab = labels[int(np.argmin(((fx - f) ** 2).sum(1)))]
    return lab if label_names else str(LABELS.index(lab) if lab in LABELS else 4)


def write(case_id, result, out):
    pass   # one file for the cohort: see run()


def run(out, ids=None, **params):
    p = dict(PARAMS); p.update(params)
    todo = [c for c in cases() if ids is None or c.name in ids]
    out = pathlib.Path(out); out.mkdir(parents=True, exist_ok=True)
    with open(out / 'predictions.csv', 'w', newline='') as fh:
        w = csv.writer(fh); w.writerow(['patient_id', 'label'])
        for c in todo:
            w.writerow([c.name, predict(c, **p)])
    return [c.name for c in todo]
'''

_VQA = '''\
from PIL import Image
from scipy import ndimage as ndi
PARAMS = {'k_sigma': 4.0, 'min_area': 6}
MODEL = 'rule-based image-statistics answerer'


def image_stats(case_dir, q, k_sigma=4.0, min_area=6):
    rgb = np.asarray(Image.open(case_dir / q['images'][0]).convert('RGB'), dtype=np.float32)
    g = rgb.mean(axis=2)
    sat = float(((rgb.max(2) - rgb.min(2)) / np.maximum(rgb.max(2), 1)).mean())
    body = g > max(10.0, 0.1 * g.max())
    th = ndi.white_tophat(g, size=9)
    inside = th[body] if body.any() else th.ravel()
    bright = body & (th > inside.mean() + k_sigma * inside.std())
    lab, n = ndi.label(bright)
    areas = ndi.sum(bright, lab, range(1, n + 1)) if n else np.array([])
    blobs = int(np.sum((areas >= min_area) & (areas <= 400)))
    flip = g[:, ::-1]
    sym = float(np.corrcoef(g.ravel(), flip.ravel())[0, 1]) if g.std() > 0 else 0.0
    h, w = g.shape
    return {'saturation': round(sat, 3), 'blobs': blobs, 'symmetry': round(sym, 3),
            'aspect': round(h / w, 3), 'dark_frac': round(float((g < 15).mean()), 3),
            'mean': round(float(g.mean()), 1)}


def answer_open(kind, s):
    if kind == 'count':
        return str(min(s['blobs'], 3))
    if kind == 'finding':
        return 'yes' if s['blobs'] > 0 else 'no'
    if kind == 'plane':
        if s['symmetry'] > 0.75:
            return 'axial' if s['aspect'] >= 0.95 else 'coronal'
        return 'sagittal'
    if kind == 'modality':
        if s['saturation'] > 0.15:
            return 'fundus photography' if s['dark_frac'] > 0.25 else 'microscopy'
        if s['dark_frac'] > 0.6:
            return 'nuclear medicine'
        if s['symmetry'] > 0.75:
            return 'MRI'
        return 'X-ray' if s['mean'] > 90 else 'CT'
    if kind == 'region':
        if s['saturation'] > 0.15:
            return 'eye' if s['dark_frac'] > 0.25 else 'abdomen'
        if s['symmetry'] > 0.75:
            return 'head'
        return 'chest' if s['aspect'] < 1.2 else 'lower limb'
    return 'yes'


SYN = {'microscopy': ['histology', 'pathology'], 'mri': ['mr', 'magnetic resonance'],
       'x-ray': ['radiograph', 'xray'], 'nuclear medicine': ['scintigraphy', 'nuclear']}


def predict(case_dir, k_sigma=4.0, min_area=6):
    q = json.loads((case_dir / 'question.json').read_text())
    s = image_stats(case_dir, q, k_sigma, min_area)
    kind = q.get('question_type', 'finding')
    text = answer_open(kind, s)
    label = None
    if q.get('options'):
        opts = {k: v.lower() for k, v in q['options'].items()}
        words = [text.lower()] + SYN.get(text.lower(), [])
        hits = [k for k, v in opts.items() if any(wd == v or wd in v or v in wd for wd in words)]
        label = hits[0] if hits else sorted(opts)[0]
        text = q['options'][label]
    raw = f"question kind={kind}; image stats={s}; answer={text}"
    return {'question_id': case_dir.name, 'predicted_label': label, 'predicted_answer': text,
            'raw_model_output': raw, 'model_name': MODEL}


def write(case_id, result, out):
    (out / case_id).mkdir(parents=True, exist_ok=True)
    (out / case_id / 'answer.json').write_text(json.dumps(result, indent=1))
'''

_REP = '''\
from PIL import Image
from scipy import ndimage as ndi
PARAMS = {'z_thr': 2.5}


def _frontal(case_dir):
    m = json.loads((case_dir / 'manifest.json').read_text())
    views = m['views']
    v = next((v for v in views if v.get('view_position') in ('PA', 'AP')), views[0])
    g = np.asarray(Image.open(case_dir / v['file']).convert('L'), dtype=np.float32)
    lo, hi = np.percentile(g, [1, 99])
    return m, np.clip((g - lo) / (hi - lo + 1e-6), 0, 1)


def feats(case_dir):
    m, g = _frontal(case_dir)
    h, w = g.shape
    f = {}
    if m.get('body_part', '').upper() == 'CHEST':
        dog = ndi.gaussian_filter(g, 3) - ndi.gaussian_filter(g, 6)
        for side, cols in (('right', slice(int(.1 * w), int(.48 * w))), ('left', slice(int(.52 * w), int(.9 * w)))):
            for zone, rows in (('upper', slice(int(.15 * h), int(.4 * h))), ('middle', slice(int(.4 * h), int(.62 * h))),
                               ('lower', slice(int(.62 * h), int(.8 * h)))):
                f[f'{side}_{zone}_density'] = float(g[rows, cols].mean())
                f[f'{side}_{zone}_blob'] = float(dog[rows, cols].max())
            f[f'{side}_base_density'] = float(g[int(.8 * h):int(.92 * h), cols].mean())
    else:
        band = g[:, int(.3 * w):int(.7 * w)]
        prof = band.mean(axis=1)
        f['lucent_line'] = float(np.max(ndi.gaussian_filter1d(prof, 8) - prof))
    return m, f


_COHORT = {}


def _cohort():
    if not _COHORT:
        for c in cases():
            m, f = feats(c)
            for k, v in f.items():
                _COHORT.setdefault(k, []).append(v)
    return _COHORT


def predict(case_dir, z_thr=2.5):
    m, f = feats(case_dir)
    co = _cohort()
    z = {}
    for k, v in f.items():
        arr = np.array(co[k]); med = np.median(arr); mad = 1.4826 * np.median(np.abs(arr - med)) + 1e-6
        z[k] = (v - med) / mad
    find, imp = [], []
    if 'lucent_line' in z:
        if z['lucent_line'] > z_thr:
            find.append('There is a transverse lucent line across the tibial shaft, consistent with a fracture.')
            imp.append('Tibial shaft fracture.')
        else:
            find.append('No acute fracture or dislocation. The bones are normally mineralised. '
                        'The soft tissues are unremarkable.')
            imp.append('No fracture.')
    else:
        for side in ('right', 'left'):
            if z[f'{side}_base_density'] > z_thr:
                find.append(f'There is a {side} pleural effusion blunting the costophrenic angle.')
                imp.append(f'{side.capitalize()} pleural effusion.')
            if z[f'{side}_lower_density'] > z_thr:
                find.append(f'There is airspace consolidation in the {side} lower zone.')
                imp.append(f'{side.capitalize()} lower zone consolidation.')
            for zone in ('upper', 'middle', 'lower'):
                if z[f'{side}_{zone}_blob'] > z_thr + 1:
                    find.append(f'There is a rounded nodule in the {side} {zone} zone.')
                    imp.append(f'{side.capitalize()} {zone} zone nodule.')
        if not find:
            find.append('The heart size is normal. The lungs are clear. No pleural effusion or pneumothorax. '
                        'No focal consolidation or nodule.')
            imp.append('No acute cardiopulmonary abnormality.')
    return 'FINDINGS: ' + ' '.join(find) + '\\n\\nIMPRESSION: ' + ' '.join(imp) + '\\n'


def write(case_id, result, out):
    (out / case_id).mkdir(parents=True, exist_ok=True)
    (out / case_id / 'report.txt').write_text(result)
'''

_ZSR = '''\
import nibabel as nib
from scipy.interpolate import make_interp_spline
PARAMS = {'k': 3, 'n_bp': 5}


def predict(case_dir, k=3, n_bp=5):
    img = nib.load(case_dir / 'lowres.nii.gz')
    lo = img.get_fdata().astype(np.float64)
    grid = json.loads((case_dir / 'target_grid.json').read_text())
    s = int(grid.get('scale_z', 4)); nz = int(grid['shape'][2])
    centres = np.arange(lo.shape[2]) * s + (s - 1) / 2.0
    est = make_interp_spline(centres, lo, k=int(k), axis=2)(np.arange(nz))
    for _ in range(int(n_bp)):               # back-projection with the slab-average model
        sim = est[..., :lo.shape[2] * s].reshape(*lo.shape[:2], lo.shape[2], s).mean(-1)
        est[..., :lo.shape[2] * s] += np.repeat(lo - sim, s, axis=2)
    return est.astype(np.float32), np.array(grid['affine'], dtype=np.float64)


def write(case_id, result, out):
    vol, affine = result
    (out / case_id).mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(vol, affine), str(out / case_id / 'sct.nii.gz'))
'''

_BODY = {"ldct-denoise": _LDCT, "brain-lesion-seg": _SEG, "xray-marker-det": _DET,
         "modality-patch-cls": _CLS, "vqa-demo-open": _VQA, "vqa-demo-mcq": _VQA,
         "cxr-report-gen": _REP, "zsr-x4-demo": _ZSR}


def method_src(ctx, **overrides) -> str:
    """The source of the task's method module (the lite tier's named method). `overrides`
    replaces entries of PARAMS in the written file."""
    common_head, common_tail = _COMMON.split("\n\ndef cases")
    body = _BODY[ctx.task_id]
    src = common_head.replace("@DATA@", repr(ctx.data_dir)) + "\n\n" + body + "\n\ndef cases" + common_tail
    if ctx.task_id == "modality-patch-cls":       # its own run(): drop the generic one
        src = src.replace("\n\ndef run(out, ids=None, **params):\n    p = dict(PARAMS); p.update(params)\n"
                          "    todo = [c for c in cases() if ids is None or c.name in ids]\n"
                          "    for c in todo:\n        write(c.name, predict(c, **p), pathlib.Path(out))\n"
                          "    return [c.name for c in todo]\n", "\n")
    if overrides:
        src = src.replace("\n\ndef cases", f"\nPARAMS.update({overrides!r})\n\n\ndef cases", 1)
    return src


def first_case(ctx) -> str:
    """Case ids are known from the staged layout; the behaviours still list them at run time.
    This is only the id used in code text (every dataset here names its first case so)."""
    return {"modality-patch-cls": "pt_000", "vqa-demo-open": "q0000", "vqa-demo-mcq": "q0000",
            "cxr-report-gen": "study_000"}.get(ctx.task_id, "case_000")


# ---- an honest input check: shape / dtype / intensity of one case, computed from the file ----
_INPUT_CHECK = {
    "ldct-denoise": '''\
x = np.load(C / 'input.npy'); info = json.loads((C / 'info.json').read_text())
print('input', x.shape, x.dtype, 'HU p1/p50/p99', np.percentile(x, [1, 50, 99]).round(1),
      'finite', bool(np.isfinite(x).all()), '| info output_shape', info['output_shape'], info['units'])
''',
    "brain-lesion-seg": '''\
import nibabel as nib
img = nib.load(C / 'image.nii.gz'); x = img.get_fdata()
print('input', x.shape, img.get_data_dtype(), 'zooms', img.header.get_zooms(),
      'p1/p50/p99', np.percentile(x, [1, 50, 99]).round(1))
print('affine diag', np.diag(img.affine).round(3))
''',
    "xray-marker-det": '''\
from PIL import Image
im = Image.open(C / 'image.png'); a = np.asarray(im)
print('input', im.mode, im.size, a.dtype, 'min/mean/max', a.min(), round(float(a.mean()), 1), a.max())
''',
    "modality-patch-cls": '''\
from PIL import Image
im = Image.open(C / 'image.png'); a = np.asarray(im)
print('input', im.mode, a.shape, a.dtype, 'channel means', a.reshape(-1, a.shape[-1]).mean(0).round(1))
print('examples', (DATA / '_examples' / 'labels.csv').read_text().count(chr(10)) - 1, 'labelled patches')
''',
    "vqa-demo-open": '''\
from PIL import Image
q = json.loads((C / 'question.json').read_text()); im = Image.open(C / q['images'][0]); a = np.asarray(im)
print('question', q['question_type'], '|', q['question'], '| image', im.mode, a.shape, a.dtype, a.min(), a.max())
''',
    "cxr-report-gen": '''\
from PIL import Image
m = json.loads((C / 'manifest.json').read_text())
for v in m['views']:
    a = np.asarray(Image.open(C / v['file']))
    print(v['view_position'], a.shape, a.dtype, 'p1/p50/p99', np.percentile(a, [1, 50, 99]))
print('body part', m['body_part'], '| indication', m['indication'])
''',
    "zsr-x4-demo": '''\
import nibabel as nib
img = nib.load(C / 'lowres.nii.gz'); x = img.get_fdata(); g = json.loads((C / 'target_grid.json').read_text())
print('input', x.shape, img.get_data_dtype(), 'zooms', img.header.get_zooms(), 'HU p1/p50/p99',
      np.percentile(x, [1, 50, 99]).round(1))
print('target shape', g['shape'], 'scale_z', g['scale_z'])
''',
}
_INPUT_CHECK["vqa-demo-mcq"] = _INPUT_CHECK["vqa-demo-open"].replace(
    "q['question'],", "q['question'], q['options'],")


def input_check(ctx, tag="# S2 check the input of one case") -> str:
    return (f"{tag}\nimport json, pathlib\nimport numpy as np\nDATA = pathlib.Path({ctx.data_dir!r})\n"
            f"C = sorted(p for p in DATA.iterdir() if p.is_dir() and not p.name.startswith('_'))[0]\n"
            f"print('case', C.name)\n" + _INPUT_CHECK[ctx.task_id])


# ---- an honest look at one case's output: values, next to the input ----
# `O` is the folder (or, for classification, the csv) holding the pilot's output, `C` the case folder
_LOOK = {
    "ldct-denoise": '''\
x = np.load(C / 'input.npy').astype(float); y = np.load(O / 'enhanced.npy')
hf = lambda a: float(np.std(a - ndi.uniform_filter(a, 3)))
print('output', y.shape, y.dtype, 'finite', bool(np.isfinite(y).all()))
print('p1/p50/p99 input', np.percentile(x, [1, 50, 99]).round(1), 'output', np.percentile(y, [1, 50, 99]).round(1))
print('high-frequency residual input', round(hf(x), 2), 'output', round(hf(y), 2))
''',
    "brain-lesion-seg": '''\
import nibabel as nib
img = nib.load(C / 'image.nii.gz'); x = img.get_fdata()
for f in ('organ.nii.gz', 'lesion.nii.gz'):
    o = nib.load(O / f); m = np.asarray(o.dataobj)
    print(f, m.shape, m.dtype, 'labels', np.unique(m).tolist(), 'voxels', int(m.sum()),
          'fraction', round(float(m.mean()), 4), 'affine ok', bool(np.allclose(o.affine, img.affine, atol=1e-3)))
    if m.any():
        print('   mean input intensity inside', round(float(x[m > 0].mean()), 1), 'outside', round(float(x[m == 0].mean()), 1))
''',
    "xray-marker-det": '''\
from PIL import Image
from collections import Counter
w, h = Image.open(C / 'image.png').size
boxes = json.loads((O / 'prediction.json').read_text())['boxes']
print(len(boxes), 'boxes on', w, 'x', h, dict(Counter(b['class'] for b in boxes)))
for b in boxes:
    print('  ', b['class'], b['score'], (b['x1'], b['y1'], b['x2'], b['y2']), 'size', b['x2'] - b['x1'], 'x', b['y2'] - b['y1'])
''',
    "modality-patch-cls": '''\
import csv
rows = list(csv.DictReader(open(O)))
print(len(rows), 'row(s):', [(r['patient_id'], r['label']) for r in rows])
print('labels valid', all(r['label'] in ('ct', 'mr', 'xray', 'ultrasound', 'histology') for r in rows))
''',
    "vqa-demo-open": '''\
a = json.loads((O / 'answer.json').read_text()); q = json.loads((C / 'question.json').read_text())
print('Q:', q['question'], '| kind', q['question_type'], q.get('options', ''))
print('A:', repr(a['predicted_answer']), '| label', a['predicted_label'], '| id', a['question_id'])
print('raw:', a['raw_model_output'])
''',
    "cxr-report-gen": '''\
m = json.loads((C / 'manifest.json').read_text()); t = (O / 'report.txt').read_text()
print('study', m['study_id'], m['body_part'], '| indication:', m['indication'])
print(t)
print('has FINDINGS', 'FINDINGS:' in t, '| words', len(t.split()))
''',
    "zsr-x4-demo": '''\
import nibabel as nib
lo = nib.load(C / 'lowres.nii.gz').get_fdata(); g = json.loads((C / 'target_grid.json').read_text())
o = nib.load(O / 'sct.nii.gz'); y = o.get_fdata()
print('output', y.shape, 'target', g['shape'], 'affine ok', bool(np.allclose(o.affine, np.array(g['affine']), atol=1e-3)))
print('HU p1/p50/p99 input', np.percentile(lo, [1, 50, 99]).round(1), 'output', np.percentile(y, [1, 50, 99]).round(1),
      'finite', bool(np.isfinite(y).all()))
sim = y.reshape(*lo.shape[:2], lo.shape[2], 4).mean(-1)
print('re-averaged output vs input: mean abs diff', round(float(np.abs(sim - lo).mean()), 3), 'HU')
''',
}
_LOOK["vqa-demo-mcq"] = _LOOK["vqa-demo-open"]


def look(ctx, case_expr: str, out_expr: str, tag="# S3 inspect the pilot output") -> str:
    """Honest look. case_expr / out_expr are Python expressions for the case folder and for
    the output folder (classification: the csv file)."""
    return (f"{tag}\nimport json, pathlib\nimport numpy as np\nfrom scipy import ndimage as ndi\n"
            f"DATA = pathlib.Path({ctx.data_dir!r})\nC = {case_expr}\nO = {out_expr}\n" + _LOOK[ctx.task_id])


def pilot_out(ctx, case_id: str, root: str = "outputs") -> str:
    """Python expression for where the pilot's output lives under `root`."""
    if ctx.task_id == "modality-patch-cls":
        return f"pathlib.Path({root!r}) / 'predictions.csv'"
    return f"pathlib.Path({root!r}) / {case_id!r}"


# ---- the final check of every case (S5) ----
_VERIFY = '''\
# S5 verify every case before submitting
import json, pathlib, csv
DATA = pathlib.Path(@DATA@)
ids = sorted(p.name for p in DATA.iterdir() if p.is_dir() and not p.name.startswith('_'))
files = @FILES@
if files == ['predictions.csv']:
    rows = list(csv.DictReader(open('outputs/predictions.csv')))
    got = [r['patient_id'] for r in rows]
    print(len(ids), 'cases,', len(rows), 'rows; missing', sorted(set(ids) - set(got)), 'duplicates', len(got) - len(set(got)))
else:
    missing = [(i, f) for i in ids for f in files if not (pathlib.Path('outputs') / i / f).is_file()]
    print(len(ids), 'cases; missing files:', missing or 'none')
'''


def verify(ctx) -> str:
    files = ["organ.nii.gz", "lesion.nii.gz"] if ctx.task_id == "brain-lesion-seg" else [OUT_FILE[ctx.task_id]]
    return _VERIFY.replace("@DATA@", repr(ctx.data_dir)).replace("@FILES@", repr(files))


def plan_md(ctx, method_line: str, steps: list[str], check: str) -> str:
    lines = [f"# Plan: {ctx.task_id}", "", f"Method (lite tier): {method_line}", "",
             f"Inputs: {', '.join(ctx.input_files)} per case under {ctx.data_dir}. "
             f"Outputs: {', '.join(ctx.output_files)} per case under outputs/.", "", "## Steps"]
    lines += [f"{i}. {s}" for i, s in enumerate(steps, 1)]
    lines += ["", "## Check", check, ""]
    return "\n".join(lines)


def write_plan(text: str, tag="# S1 write the plan") -> str:
    return (f"{tag}\nimport pathlib\npathlib.Path('plan').mkdir(exist_ok=True)\n"
            f"pathlib.Path('plan/plan.md').write_text({text!r})\nprint('plan.md', len({text!r}), 'chars')\n")


def dedent(s: str) -> str:
    return textwrap.dedent(s)


def method_inline(ctx, **overrides) -> str:
    """The method's source without its command-line entry point (to paste into a call)."""
    src = method_src(ctx, **overrides)
    return src.split("\nif __name__ == '__main__':")[0]


def save_file(path: str, text: str, tag: str) -> str:
    """A python call that writes `text` to `path` (the usual way an agent writes a file)."""
    return (f"{tag}\nimport pathlib\np = pathlib.Path({path!r}); p.parent.mkdir(parents=True, exist_ok=True)\n"
            f"p.write_text({text!r})\nprint('wrote', p, len(p.read_text().splitlines()), 'lines')\n")


LIST_CASES = ("DATA = pathlib.Path({data!r})\n"
              "CASES = sorted(p for p in DATA.iterdir() if p.is_dir() and not p.name.startswith('_'))\n")
