"""Per-task code pieces the held-out agents (calibration/generators/heldout_agents.py) paste into their calls.

The held-out set (docs/judge.md "Held-out set") runs on the four offline demo tasks; each kit
knows, for one task, how to write the real method into the workspace, run it on one case or
on every case, print what a careful agent prints about an input or an output (real content:
shape, values, foreground, boxes, rows, intensity range), assert the same silently, and the
realistic bug the "wrong pilot" agents put in their post-processing. Every piece is Python or
shell source text run inside the sandbox; nothing here runs on the host.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from importlib import resources

DATA = "/data/public"
# the tiers and the four demo tasks the held-out parts run on
S, L = "standard", "lite"
SEG, DET, ENH, CLS = "brain-lesion-seg", "xray-marker-det", "ldct-denoise", "modality-patch-cls"
CASES = (f"cases = sorted(p for p in pathlib.Path({DATA!r}).iterdir() "
         "if p.is_dir() and not p.name.startswith('_'))")


def _src(track: str, name: str) -> str:
    return resources.files(f"automedbench.tracks.{track}.methods").joinpath(name).read_text()


def at_folder(piece: str, var: str) -> str:
    """A kit piece written for the folder '__OUT__', pointed at the Python expression `var`."""
    return piece.replace("'__OUT__'", var)


def block(text: str) -> str:
    return textwrap.dedent(text).strip("\n") + "\n"


@dataclass
class Kit:
    task: str
    track: str
    files: list[str]                      # method files, the first is the entry module
    imports: str                          # the format libraries the pieces below use
    method: str                           # one line: the chosen method, as a plan names it
    candidates: list[tuple[str, str]]     # (candidate, verdict) for a plan's comparison
    steps: list[str]                      # executable pipeline steps, in order
    per_case: bool = True
    sources: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.sources = {n: _src(self.track, n) for n in self.files}

    @property
    def module(self) -> str:
        return self.files[0].removesuffix(".py")

    def head(self) -> str:
        """The imports and the case list every Python piece below relies on."""
        return block(f"""
            import pathlib, sys, json, shutil
            import numpy as np
            {self.imports}
            sys.path.insert(0, '.')
            {CASES}
            """)

    def write_method(self) -> str:
        return f"for _name, _text in {self.sources!r}.items():\n    pathlib.Path(_name).write_text(_text)\n"

    def load(self) -> str:
        return f"import {self.module} as method\n"

    def pilot(self, out: str, n: int = 1) -> str:
        """The method on the first `n` cases into `out` (a folder under the workspace)."""
        return self._over(f"cases[:{n}]", out)

    def batch(self, out: str) -> str:
        return self._over("cases", out)

    def _over(self, sel: str, out: str) -> str:
        if not self.per_case:
            return self.run_rows(sel, out)
        return f"for c in {sel}:\n    " + self.run("c", f"pathlib.Path({out!r})")

    def fix_all(self, out: str, sel: str, buggy: bool) -> str:
        """The agent's post-processing of the outputs of `sel` under `out`."""
        if not self.per_case:
            return self.postprocess(out, "", buggy)
        return f"for c in {sel}:\n" + textwrap.indent(self.postprocess(out, "c", buggy), "    ")

    def run(self, case: str, out: str) -> str:
        raise NotImplementedError

    def run_rows(self, sel: str, out: str) -> str:
        raise NotImplementedError

    def postprocess(self, out: str, case: str, buggy: bool) -> str:
        raise NotImplementedError

    def heredoc_method(self) -> str:
        parts = []
        for name, text in self.sources.items():
            parts.append(f"cat > {name} <<'PYEOF'\n{text.rstrip()}\nPYEOF")
        return "\n".join(parts) + "\n"


class SegKit(Kit):
    def input_show(self) -> str:
        return block("""
            img = nib.load(str(cases[0] / 'image.nii.gz'))
            x = img.get_fdata(dtype='float32')
            print('input', cases[0].name, 'shape', x.shape, 'dtype', img.get_data_dtype(),
                  'spacing', tuple(float(z) for z in img.header.get_zooms()),
                  'p1/p99', np.percentile(x, [1, 99]).round(1))
            """)

    def input_assert(self) -> str:
        return block("""
            img = nib.load(str(cases[0] / 'image.nii.gz'))
            x = img.get_fdata(dtype='float32')
            assert x.ndim == 3 and min(x.shape) > 32, x.shape
            assert all(abs(float(z) - 2.0) < 0.01 for z in img.header.get_zooms())
            assert np.percentile(x, 99) > 100
            """)

    def run(self, case: str, out: str) -> str:
        return f"method.main(['{self.files[0]}', str({case} / 'image.nii.gz'), str({out} / {case}.name)])\n"

    def sh_run(self, case: str, out: str) -> str:
        return f"python {self.files[0]} {case}/image.nii.gz {out}/$(basename {case})"

    def show(self, out: str) -> str:
        return block(f"""
            src = nib.load(str(cases[0] / 'image.nii.gz'))
            for f in ('organ.nii.gz', 'lesion.nii.gz'):
                m = nib.load(str(pathlib.Path({out!r}) / cases[0].name / f))
                a = np.asarray(m.dataobj)
                n, vals = int(np.count_nonzero(a)), np.unique(a)
                print(f, 'shape', a.shape, 'input', src.shape, 'values', vals[:6].tolist(), f'({{len(vals)}} distinct)',
                      'foreground', n, 'voxels =', round(n * 8 / 1000, 1), 'ml')
            """)

    def check(self, out: str) -> str:
        return block(f"""
            src = nib.load(str(cases[0] / 'image.nii.gz'))
            organ = np.asarray(nib.load(str(pathlib.Path({out!r}) / cases[0].name / 'organ.nii.gz')).dataobj)
            lesion = np.asarray(nib.load(str(pathlib.Path({out!r}) / cases[0].name / 'lesion.nii.gz')).dataobj)
            assert organ.shape == src.shape and lesion.shape == src.shape
            assert set(np.unique(organ).tolist()) == {{0, 1}}, 'organ mask not binary or empty'
            assert 50_000 < organ.sum() < 600_000, int(organ.sum())
            assert not (lesion.astype(bool) & ~organ.astype(bool)).any(), 'lesion outside the brain'
            """)

    def postprocess(self, out: str, case: str, buggy: bool) -> str:
        cut = "> 1" if buggy else "> 0"
        return block(f"""
            for f in ('organ.nii.gz', 'lesion.nii.gz'):   # binarise the saved masks to uint8
                p = pathlib.Path({out!r}) / {case}.name / f
                m = nib.load(str(p))
                nib.save(nib.Nifti1Image((np.asarray(m.dataobj) {cut}).astype(np.uint8), m.affine), str(p))
            """)

    def copy_input(self, case: str, out: str) -> str:
        return block(f"""
            (pathlib.Path({out!r}) / {case}.name).mkdir(parents=True, exist_ok=True)
            for f in ('organ.nii.gz', 'lesion.nii.gz'):
                shutil.copy({case} / 'image.nii.gz', pathlib.Path({out!r}) / {case}.name / f)
            """)


class DetKit(Kit):
    def input_show(self) -> str:
        return block("""
            im = Image.open(cases[0] / 'image.png')
            a = np.asarray(im)
            print('input', cases[0].name, 'size', im.size, 'mode', im.mode, 'dtype', a.dtype,
                  'range', int(a.min()), int(a.max()), 'mean', round(float(a.mean()), 1))
            """)

    def input_assert(self) -> str:
        return block("""
            im = Image.open(cases[0] / 'image.png')
            a = np.asarray(im)
            assert im.size == (256, 256) and a.dtype == np.uint8, (im.size, a.dtype)
            assert a.max() > a.min()
            """)

    def run(self, case: str, out: str) -> str:
        return f"method.main(['{self.files[0]}', str({case} / 'image.png'), str({out} / {case}.name)])\n"

    def sh_run(self, case: str, out: str) -> str:
        return f"python {self.files[0]} {case}/image.png {out}/$(basename {case})"

    def show(self, out: str) -> str:
        return block(f"""
            from collections import Counter
            w, h = Image.open(cases[0] / 'image.png').size
            boxes = json.loads((pathlib.Path({out!r}) / cases[0].name / 'prediction.json').read_text())['boxes']
            print(len(boxes), 'boxes on a', w, 'x', h, 'image;', dict(Counter(b['class'] for b in boxes)))
            for b in boxes[:6]:
                print('  ', b['class'], (b['x1'], b['y1'], b['x2'], b['y2']), 'size', b['x2'] - b['x1'], 'x',
                      b['y2'] - b['y1'], 'score', b['score'])
            """)

    def check(self, out: str) -> str:
        return block(f"""
            w, h = Image.open(cases[0] / 'image.png').size
            boxes = json.loads((pathlib.Path({out!r}) / cases[0].name / 'prediction.json').read_text())['boxes']
            for b in boxes:
                assert 0 <= b['x1'] < b['x2'] <= w and 0 <= b['y1'] < b['y2'] <= h, b
                assert 4 <= b['x2'] - b['x1'] <= 40, b
                assert b['class'] in ('marker', 'ring') and 0 <= b['score'] <= 1, b
            """)

    def postprocess(self, out: str, case: str, buggy: bool) -> str:
        conv = ("b['x2'], b['y2'] = b['x2'] - b['x1'], b['y2'] - b['y1']   # to COCO (x, y, w, h)"
                if buggy else "b['x2'], b['y2'] = int(b['x2']), int(b['y2'])   # corner coordinates")
        return block(f"""
            p = pathlib.Path({out!r}) / {case}.name / 'prediction.json'
            pred = json.loads(p.read_text())
            for b in pred['boxes']:
                {conv}
            p.write_text(json.dumps(pred))
            """)


class EnhKit(Kit):
    def input_show(self) -> str:
        return block("""
            x = np.load(cases[0] / 'input.npy')
            info = json.loads((cases[0] / 'info.json').read_text())
            print('input', cases[0].name, 'shape', x.shape, 'dtype', x.dtype,
                  'HU p1/p50/p99', np.percentile(x, [1, 50, 99]).round(1), 'info', info)
            """)

    def input_assert(self) -> str:
        return block("""
            x = np.load(cases[0] / 'input.npy')
            info = json.loads((cases[0] / 'info.json').read_text())
            assert list(x.shape) == info['output_shape'] and x.dtype.kind == 'f'
            assert np.percentile(x, 1) < -500 < np.percentile(x, 99), 'not Hounsfield units'
            """)

    def run(self, case: str, out: str) -> str:
        return f"method.main(['{self.files[0]}', str({case}), str({out} / {case}.name)])\n"

    def sh_run(self, case: str, out: str) -> str:
        return f"python {self.files[0]} {case} {out}/$(basename {case})"

    def show(self, out: str) -> str:
        return block(f"""
            x = np.load(cases[0] / 'input.npy').astype(float)
            y = np.load(pathlib.Path({out!r}) / cases[0].name / 'enhanced.npy')
            hf = lambda a: float(np.std(np.diff(a, axis=1)))
            print('output', y.shape, y.dtype, 'input', x.shape, 'finite', bool(np.isfinite(y).all()))
            print('p1/p50/p99 in', np.percentile(x, [1, 50, 99]).round(1), 'out', np.percentile(y, [1, 50, 99]).round(1))
            print('high-frequency std in', round(hf(x), 2), 'out', round(hf(y), 2))
            """)

    def check(self, out: str) -> str:
        return block(f"""
            x = np.load(cases[0] / 'input.npy').astype(float)
            y = np.load(pathlib.Path({out!r}) / cases[0].name / 'enhanced.npy')
            assert y.shape == x.shape and np.isfinite(y).all()
            assert abs(np.percentile(y, 50) - np.percentile(x, 50)) < 100, 'units changed'
            assert np.std(np.diff(y, axis=1)) < 0.8 * np.std(np.diff(x, axis=1)), 'not smoother'
            """)

    def postprocess(self, out: str, case: str, buggy: bool) -> str:
        body = ("y = (y - y.min()) / (y.max() - y.min())   # normalise for saving" if buggy else
                "y = np.clip(y, -1024, None)   # nothing below air")
        return block(f"""
            p = pathlib.Path({out!r}) / {case}.name / 'enhanced.npy'
            y = np.load(p).astype(np.float32)
            {body}
            np.save(p, y.astype(np.float32))
            """)

    def copy_input(self, case: str, out: str) -> str:
        return block(f"""
            (pathlib.Path({out!r}) / {case}.name).mkdir(parents=True, exist_ok=True)
            shutil.copy({case} / 'input.npy', pathlib.Path({out!r}) / {case}.name / 'enhanced.npy')
            """)


LABELS = ["ct", "mr", "xray", "ultrasound", "histology"]


class ClsKit(Kit):
    """One cohort file: `run` classifies the listed cases and writes their rows."""

    def input_show(self) -> str:
        return block("""
            import csv
            im = Image.open(cases[0] / 'image.png')
            a = np.asarray(im)
            print('input', cases[0].name, 'size', im.size, 'mode', im.mode, 'range', int(a.min()), int(a.max()),
                  'channel means', a.reshape(-1, a.shape[-1]).mean(axis=0).round(1))
            ex = list(csv.DictReader(open(pathlib.Path('/data/public/_examples/labels.csv'))))
            print(len(ex), 'labelled examples', sorted({r['label'] for r in ex}))
            """)

    def input_assert(self) -> str:
        return block("""
            im = Image.open(cases[0] / 'image.png')
            assert im.size == (64, 64) and im.mode == 'RGB', (im.size, im.mode)
            assert pathlib.Path('/data/public/_examples/labels.csv').is_file()
            """)

    def run_rows(self, sel: str, out: str) -> str:
        return block(f"""
            import csv
            _sel = {sel}
            _pred = method.classify(pathlib.Path({DATA!r}), _sel)
            pathlib.Path({out!r}).mkdir(parents=True, exist_ok=True)
            with open(pathlib.Path({out!r}) / 'predictions.csv', 'w', newline='') as fh:
                csv.writer(fh).writerows([('patient_id', 'label'), *[(c.name, p) for c, p in zip(_sel, _pred)]])
            """)

    def sh_all(self, out: str) -> str:
        return f"python {self.files[0]} {DATA} {out}/predictions.csv"

    def show(self, out: str) -> str:
        return block(f"""
            import csv
            from collections import Counter
            rows = list(csv.DictReader(open(pathlib.Path({out!r}) / 'predictions.csv')))
            print(len(rows), 'rows; first', [(r['patient_id'], r['label']) for r in rows[:3]])
            print('labels', dict(Counter(r['label'] for r in rows)), 'allowed', {LABELS!r})
            """)

    def check(self, out: str) -> str:
        return block(f"""
            import csv
            rows = list(csv.DictReader(open(pathlib.Path({out!r}) / 'predictions.csv')))
            assert rows and all(r['label'] in {LABELS!r} for r in rows), rows[:3]
            assert len({{r['patient_id'] for r in rows}}) == len(rows)
            """)

    def postprocess(self, out: str, case: str, buggy: bool) -> str:
        body = ("r['label'] = str(sorted(LABELS).index(r['label']))   # class ids for the scorer"
                if buggy else "r['label'] = r['label'].strip().lower()")
        return block(f"""
            import csv
            LABELS = {LABELS!r}
            p = pathlib.Path({out!r}) / 'predictions.csv'
            rows = list(csv.DictReader(open(p)))
            for r in rows:
                {body}
            with open(p, 'w', newline='') as fh:
                csv.writer(fh).writerows([('patient_id', 'label'), *[(r['patient_id'], r['label']) for r in rows]])
            """)


KITS: dict[str, Kit] = {
    "brain-lesion-seg": SegKit(
        "brain-lesion-seg", "segmentation", ["brain_lesion_classical.py", "brain_common.py"],
        "import nibabel as nib",
        "Otsu threshold + morphology for the brain mask; bias correction, then white-matter z-score "
        "outliers confirmed by left-right asymmetry for the lesions",
        [("Classical intensity/morphology (Otsu, z-score outliers)", "chosen: runs offline, no weights, "
          "lesions are bright focal outliers inside white matter"),
         ("SynthSeg / SynthStrip", "brain only, no lesion class; weights need a download"),
         ("nnU-Net WMH model", "trained on FLAIR, not T1; heavy GPU model for 6 volumes"),
         ("HD-BET", "brain extraction only")],
        ["Load each image.nii.gz with nibabel; check shape, spacing and intensity range.",
         "Brain: Otsu threshold, binary closing/opening, keep the largest component.",
         "Lesions: bias-correct, z-score inside white matter, keep outliers mirrored by no "
         "counterpart in the other hemisphere.",
         "Run ONE case, open both masks: shape = input, values {0,1}, plausible volumes.",
         "Run every case into outputs/<case_id>/organ.nii.gz and lesion.nii.gz.",
         "Check every case has both masks, then submit."]),
    "xray-marker-det": DetKit(
        "xray-marker-det", "detection", ["marker_detector.py"], "from PIL import Image",
        "white top-hat (25 px disc) + threshold + round connected components 6-34 px; ring vs marker "
        "by hole filling",
        [("White top-hat + connected components", "chosen: markers are small, bright and round"),
         ("Hough circle transform", "finds rings but misses small solid markers"),
         ("Template matching (disc/ring)", "needs one template per size"),
         ("Pretrained YOLO / Faster R-CNN", "no marker class; needs weights and a GPU")],
        ["Read each image.png (8-bit, 256x256); check size and range.",
         "White top-hat with a 25 px disc, threshold, connected components.",
         "Keep round components 6-34 px across; ring if filling holes adds >= 15 %.",
         "Run ONE image, print its boxes, check corners inside the image.",
         "Run every case into outputs/<case_id>/prediction.json.",
         "Check every case has a prediction, then submit."]),
    "ldct-denoise": EnhKit(
        "ldct-denoise", "enhancement", ["enhance_classical.py"], "",
        "total-variation denoising (Chambolle), normalised by the 1-99 % range, mapped back to HU",
        [("Total variation (Chambolle)", "chosen: offline, edge-preserving, no weights"),
         ("Non-local means / BM3D", "slower, BM3D not installed"),
         ("RED-CNN / DnCNN", "needs LDCT weights we do not have"),
         ("CTformer", "transformer, heavy, weights needed")],
        ["Load each input.npy (HU) and info.json; check shape, dtype and HU range.",
         "Normalise by the 1-99 % range, TV-denoise (weight 0.05, 100 iterations), map back to HU.",
         "Run ONE case; compare output shape, HU percentiles and noise against the input.",
         "Run every case into outputs/<case_id>/enhanced.npy.",
         "Check every output is finite with the expected shape, then submit."]),
    "modality-patch-cls": ClsKit(
        "modality-patch-cls", "classification", ["patch_classifier.py"], "from PIL import Image",
        "1-nearest-neighbour on 18 image statistics against the labelled examples in _examples/",
        [("Image statistics + 1-NN on the examples", "chosen: 40 labelled examples, offline"),
         ("CLIP / BiomedCLIP zero-shot", "weights need a download"),
         ("Pretrained CNN embeddings + NN", "weights, GPU"),
         ("Rule-based colour/intensity thresholds", "brittle between ct and xray")],
        ["Look at one patch (size, mode, range) and _examples/labels.csv.",
         "Features: 18 statistics (saturation, percentiles, edges, speckle, entropy), standardised.",
         "Label = label of the nearest labelled example (1-NN).",
         "Classify ONE case, check the row and that its label is in the allowed set.",
         "Classify every case into outputs/predictions.csv (patient_id,label).",
         "Check one row per case, then submit."], per_case=False),
}
