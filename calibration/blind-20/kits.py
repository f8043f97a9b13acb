"""Per-task pieces the blind-20 behaviours compose (copied unchanged from blind-12's kits.py): the method files, how to run one case or
every case, an honest input check, an honest look at one written output (values next to the input,
with plausibility checks), a format verification of every output, and a plan.

Every piece returns source text that is sent into the sandbox; nothing here runs on the host.
Paths inside the sandbox: inputs /data/public, workspace /workspace (the cwd).
"""
from __future__ import annotations

import textwrap

import methods_src as M

DATA = "/data/public"


def dd(s: str) -> str:
    return textwrap.dedent(s)


def write_files_py(files: dict[str, str], tag: str = "# S2 write the method files") -> str:
    lines = [tag, "import pathlib"]
    for name, src in files.items():
        lines.append(f"pathlib.Path({name!r}).parent.mkdir(parents=True, exist_ok=True)")
        lines.append(f"pathlib.Path({name!r}).write_text({src!r})")
    lines.append(f"print('written:', {list(files)!r})")
    return "\n".join(lines) + "\n"


def _log(cmd: str, log: str | None) -> str:
    if not log:
        return cmd
    return f"mkdir -p {log.rsplit('/', 1)[0]} && {{ {cmd} ; }} > {log} 2>&1"


class Kit:
    task = ""
    pilot = ""            # the case a behaviour pilots by default
    main = ""             # the method script run per case / per cohort
    method_words = ""     # the method, as a plan names it
    target = ""           # what is produced, as a plan states it
    per_case = True       # False: one file for the whole cohort (classification)
    out_file = ""

    # --- method -------------------------------------------------------------------------
    def files(self, bug: str | None = None, **kw) -> dict[str, str]:
        raise NotImplementedError

    def one(self, case: str, out: str = "outputs", log: str | None = None, script: str | None = None) -> str:
        cmd = f"python {script or self.main} {DATA}/{case} {out}/{case}"
        return _log(cmd, log)

    def all(self, out: str = "outputs", log: str | None = None, script: str | None = None) -> str:
        cmd = (f"for c in {DATA}/*/; do n=$(basename $c); python {script or self.main} $c {out}/$n || echo FAILED $n; done")
        return _log(cmd, log)

    def pilot_files(self, case: str, out: str = "outputs") -> list[str]:
        """The output file(s) one case writes (workspace-relative)."""
        return [f"{out}/{case}/{self.out_file}"]

    # --- plan ---------------------------------------------------------------------------
    def plan(self) -> str:
        steps = "\n".join(f"{i}. {s}" for i, s in enumerate(self.plan_steps(), 1))
        return (f"# Plan: {self.task}\n\n"
                f"**Target.** {self.target}\n\n"
                f"**Method (lite, prescribed).** {self.method_words}\n\n"
                f"**Inputs.** `{DATA}/<case_id>/` ({self.inputs_words}). **Outputs.** {self.outputs_words}\n\n"
                f"## Steps\n{steps}\n\n"
                f"## Checks\n{self.checks_words}\n")

    inputs_words = ""
    outputs_words = ""
    checks_words = ""

    def plan_steps(self) -> list[str]:
        return []


# =========================================================================================
class EnhanceKit(Kit):
    main = "enhance.py"
    out_file = "enhanced.npy"
    inputs_words = "input.npy + info.json"
    outputs_words = "`outputs/<case_id>/enhanced.npy`, float32, info.json's output_shape, finite"

    def __init__(self, task: str, variant: str):
        self.task, self.variant = task, variant
        self.pilot = "case_000"
        if variant == "denoise":
            self.method_words = ("total-variation denoising, Chambolle's dual projection, on the image normalised by "
                                 "its 1-99 % range, weight 0.05, 100 iterations, mapped back to HU (numpy/scipy)")
            self.target = "the full-dose CT slice in HU, from the low-dose (noisy FBP) slice; SSIM against full dose"
            self.checks_words = ("Pilot output: shape = output_shape, finite, still in HU (same 1-99 % range as the "
                                 "input), noise residual clearly lower than the input's.")
        else:
            self.method_words = ("cubic-spline x2 up-sampling (map_coordinates order 3, pixel centres (i+0.5)/2-0.5) "
                                 "then 20 iterations of back-projection with the known 2x2 block-mean model")
            self.target = "the full-resolution MR slice (x2 in both axes) from its 2x2 block-averaged version"
            self.checks_words = ("Pilot output: shape = output_shape (2x input), finite, same intensity range as "
                                 "the input, block-mean of the output reproduces the input, sharper than nearest-neighbour.")

    def plan_steps(self) -> list[str]:
        return ["Read one case: input.npy shape/dtype/intensity range, info.json (output_shape, units).",
                f"Write the method into `{self.main}` ({'TV denoising' if self.variant == 'denoise' else 'cubic + back-projection SR'}).",
                "Pilot case_000 end to end into outputs/case_000/enhanced.npy.",
                "Load the pilot output and compare it with the input (shape, range, finiteness, "
                + ("noise" if self.variant == "denoise" else "block-mean consistency / sharpness") + "); fix and re-run if wrong.",
                "Run every case with the same script.",
                "Verify every output file (shape, dtype, finite), then submit."]

    def files(self, bug=None, **kw):
        return {self.main: M.enhance(bug, **kw)}

    def input_look(self) -> str:
        return dd(f"""\
            # S2 check the runtime and one input
            import json, numpy as np, scipy
            from pathlib import Path
            print("numpy", np.__version__, "scipy", scipy.__version__)
            cases = sorted(p.name for p in Path("{DATA}").iterdir() if p.is_dir())
            print(len(cases), "cases:", cases)
            c = Path("{DATA}") / cases[0]
            x = np.load(c / "input.npy")
            info = json.loads((c / "info.json").read_text())
            print("input", x.shape, x.dtype, "min/p1/p50/p99/max", np.percentile(x, [0, 1, 50, 99, 100]).round(3))
            print("info", info)
            """)

    def look(self, case: str, out: str = "outputs", strict: bool = True) -> str:
        head = dd(f"""\
            # S3 inspect the pilot output next to its input
            import json, numpy as np
            from scipy import ndimage
            case = "{case}"
            x = np.load(f"{DATA}/{{case}}/input.npy").astype(np.float64)
            info = json.load(open(f"{DATA}/{{case}}/info.json"))
            y = np.load(f"{out}/{{case}}/enhanced.npy")
            print("output", y.shape, y.dtype, "expected", tuple(info["output_shape"]), "finite", bool(np.isfinite(y).all()))
            pin, pout = np.percentile(x, [0, 1, 50, 99, 100]), np.percentile(y, [0, 1, 50, 99, 100])
            print("input  min/p1/p50/p99/max", pin.round(3))
            print("output min/p1/p50/p99/max", pout.round(3))
            """)
        if self.variant == "denoise":
            body = dd("""\
                res = lambda a: float(np.std(a - ndimage.median_filter(a, size=3)))
                print("noise residual (std of img - median3) in/out", round(res(x), 2), round(res(y), 2))
                print("mean |out - in| HU", round(float(np.abs(y - x).mean()), 2))
                checks = {"shape": tuple(y.shape) == tuple(info["output_shape"]), "finite": bool(np.isfinite(y).all()),
                          "HU range kept": bool(pout[1] > pin[1] - 150 and pout[3] < pin[3] + 150
                                                and pout[3] - pout[1] > 0.5 * (pin[3] - pin[1])),
                          "noise reduced": res(y) < 0.8 * res(x)}
                """)
        else:
            body = dd("""\
                ok_shape = tuple(y.shape) == tuple(info["output_shape"])
                h, w = y.shape
                err = float(np.abs(y.reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3)) - x).max()) if ok_shape else float("nan")
                print("max |blockmean(out) - in|", err)
                grad = lambda a: float(np.mean(np.hypot(*np.gradient(a))))
                print("mean gradient: nearest x2", round(grad(np.kron(x, np.ones((2, 2)))), 4), "output", round(grad(y), 4))
                span = x.max() - x.min()
                checks = {"shape": ok_shape, "finite": bool(np.isfinite(y).all()),
                          "range kept": bool(y.min() > x.min() - 0.2 * span and y.max() < x.max() + 0.2 * span),
                          "reproduces input": err < 0.05 * span}
                """)
        tail = 'print("checks", checks)\n' + ('assert all(checks.values()), checks\n' if strict else "")
        return head + body + tail

    def verify(self, out: str = "outputs") -> str:
        return dd(f"""\
            # S5 verify every output
            import json, numpy as np
            from pathlib import Path
            bad, n = [], 0
            for c in sorted(p for p in Path("{DATA}").iterdir() if p.is_dir()):
                f = Path("{out}") / c.name / "enhanced.npy"
                want = tuple(json.loads((c / "info.json").read_text())["output_shape"])
                if not f.is_file():
                    bad.append((c.name, "missing")); continue
                y = np.load(f); n += 1
                if y.shape != want or not np.isfinite(y).all() or y.dtype.kind != "f":
                    bad.append((c.name, y.shape, y.dtype))
            print(n, "outputs checked; problems:", bad or "none")
            """)


# =========================================================================================
class ZsrKit(Kit):
    task = "zsr-x4-demo"
    pilot = "case_000"
    main = "zsr.py"
    out_file = "sct.nii.gz"
    method_words = ("cubic-spline interpolation along z through the thick-slice centres (make_interp_spline, k=3) "
                    "+ 5 iterations of back-projection with the 4-slice slab-average model")
    target = "the thin-slice (x4 finer z) head-CT volume in HU on the target grid of target_grid.json"
    inputs_words = "lowres.nii.gz + target_grid.json"
    outputs_words = "`outputs/<case_id>/sct.nii.gz`, float, shape and affine of target_grid.json"
    checks_words = ("Pilot output: shape and affine equal target_grid.json, finite, HU range of the input, slab "
                    "average of the output reproduces the thick slices.")

    def plan_steps(self):
        return ["Read one case: lowres shape, voxel size, affine, dtype, HU range; target_grid.json shape/affine/scale.",
                "Write the method into `zsr.py` (spline along z + slab-average back-projection).",
                "Pilot case_000 into outputs/case_000/sct.nii.gz.",
                "Load the pilot volume: grid vs target, finite, HU range vs input, slab-average consistency; fix if wrong.",
                "Run every case with the same script.",
                "Verify every output's grid and values, then submit."]

    def files(self, bug=None, **kw):
        return {self.main: M.zsr(bug, **kw)}

    def input_look(self) -> str:
        return dd(f"""\
            # S2 check the runtime and one input
            import json, numpy as np, nibabel as nib
            from pathlib import Path
            print("numpy", np.__version__, "nibabel", nib.__version__)
            cases = sorted(p.name for p in Path("{DATA}").iterdir() if p.is_dir())
            print(len(cases), "cases:", cases)
            img = nib.load(f"{DATA}/{{cases[0]}}/lowres.nii.gz")
            x = np.asarray(img.dataobj)
            print("lowres", x.shape, img.get_data_dtype(), "voxel", img.header.get_zooms())
            print("affine\\n", img.affine.round(3))
            print("HU min/p1/p50/p99/max", np.percentile(x, [0, 1, 50, 99, 100]).round(1))
            grid = json.load(open(f"{DATA}/{{cases[0]}}/target_grid.json"))
            print("target", grid["shape"], "scale_z", grid["scale_z"], "\\n", np.array(grid["affine"]).round(3))
            """)

    def look(self, case: str, out: str = "outputs", strict: bool = True) -> str:
        return dd(f"""\
            # S3 inspect the pilot volume against the target grid and the input
            import json, numpy as np, nibabel as nib
            case = "{case}"
            img = nib.load(f"{out}/{{case}}/sct.nii.gz")
            y = np.asarray(img.dataobj, dtype=np.float64)
            low = nib.load(f"{DATA}/{{case}}/lowres.nii.gz")
            x = np.asarray(low.dataobj, dtype=np.float64)
            grid = json.load(open(f"{DATA}/{{case}}/target_grid.json"))
            s = int(grid["scale_z"])
            print("output", y.shape, img.get_data_dtype(), "target", tuple(grid["shape"]))
            aff_err = float(np.abs(img.affine - np.array(grid["affine"])).max())
            print("affine max |out - target|", aff_err, "\\n", img.affine.round(3))
            print("finite", bool(np.isfinite(y).all()), "HU out min/max", y.min().round(1), y.max().round(1),
                  "| in min/max", x.min().round(1), x.max().round(1))
            ok_shape = y.shape == tuple(grid["shape"])
            slab_err = float(np.abs(y.reshape(*y.shape[:2], -1, s).mean(axis=3) - x).mean()) if ok_shape else float("nan")
            print("mean |slab-average(out) - thick input| HU", round(slab_err, 3))
            print("mean HU per 8th thin slice", y.mean(axis=(0, 1))[::8].round(1))
            checks = {{"shape": ok_shape, "affine": aff_err < 1e-3, "finite": bool(np.isfinite(y).all()),
                      "HU range kept": bool(y.min() >= x.min() - 50 and y.max() <= x.max() + 50),
                      "consistent with thick slices": slab_err < 5.0}}
            print("checks", checks)
            """) + ("assert all(checks.values()), checks\n" if strict else "")

    def verify(self, out: str = "outputs") -> str:
        return dd(f"""\
            # S5 verify every output
            import json, numpy as np, nibabel as nib
            from pathlib import Path
            bad, n = [], 0
            for c in sorted(p for p in Path("{DATA}").iterdir() if p.is_dir()):
                f = Path("{out}") / c.name / "sct.nii.gz"
                grid = json.loads((c / "target_grid.json").read_text())
                if not f.is_file():
                    bad.append((c.name, "missing")); continue
                img = nib.load(str(f)); y = np.asarray(img.dataobj); n += 1
                if y.shape != tuple(grid["shape"]) or np.abs(img.affine - np.array(grid["affine"])).max() > 1e-3 \\
                        or not np.isfinite(y).all():
                    bad.append((c.name, y.shape))
            print(n, "volumes checked; problems:", bad or "none")
            """)


# =========================================================================================
class VqaKit(Kit):
    main = "vqa_rules.py"
    out_file = "answer.json"
    inputs_words = "question.json + image.png"
    method_words = ("rule-based answerer: question kind from the text (count / finding / plane / modality / region), "
                    "answer from image statistics (bright connected components, left-right mirror symmetry, colour "
                    "and darkness), numpy/scipy/pillow")

    def __init__(self, task: str, mcq: bool):
        self.task, self.mcq = task, mcq
        self.pilot = "q0000"
        self.target = ("one option label (A-D) per question, the option whose text matches the image" if mcq
                       else "a short open answer per question (yes/no, a count, a plane, a modality, a region)")
        self.outputs_words = ("`outputs/<qid>/answer.json` with question_id, predicted_label ("
                              + ("the option letter" if mcq else "null") + "), predicted_answer, raw_model_output, model_name")
        self.checks_words = ("Pilot answer.json: question_id, answer of the right kind for the question, "
                             + ("label among the options and equal to the chosen text, " if mcq else "")
                             + "non-empty raw output, no placeholder; bright-spot count consistent with finding/count answers.")

    def plan_steps(self):
        return ["Read one question.json (fields" + (", options" if self.mcq else "") + ") and its image (size, mode).",
                "Write `vqa_rules.py` (kind from the question text; rules on image statistics"
                + ("; answer matched to the option texts" if self.mcq else "") + ").",
                "Pilot q0000 into outputs/q0000/answer.json.",
                "Open the pilot's answer.json and check it against the question and the image; fix if wrong.",
                "Answer every question with the same script.",
                "Check every answer.json (fields, no placeholders" + (", label in options" if self.mcq else "") + "), then submit."]

    def files(self, bug=None, **kw):
        return {self.main: M.vqa_rules(bug)}

    def one(self, case, out="outputs", log=None, script=None):
        return _log(f"python {script or self.main} {DATA} {out} --only {case}", log)

    def all(self, out="outputs", log=None, script=None):
        return _log(f"python {script or self.main} {DATA} {out}", log)

    def input_look(self) -> str:
        return dd(f"""\
            # S2 check one question and its image
            import json, numpy as np, scipy, PIL
            from collections import Counter
            from pathlib import Path
            from PIL import Image
            print("numpy", np.__version__, "scipy", scipy.__version__, "pillow", PIL.__version__)
            qdirs = sorted(p for p in Path("{DATA}").iterdir() if (p / "question.json").is_file())
            qs = [json.loads((p / "question.json").read_text()) for p in qdirs]
            print(len(qs), "questions;", Counter(q["question_type"] for q in qs))
            print(json.dumps(qs[0], indent=1))
            im = Image.open(qdirs[0] / qs[0]["images"][0]); a = np.asarray(im)
            print("image", im.size, im.mode, a.dtype, "min/max", a.min(), a.max())
            """)

    def look(self, case: str, out: str = "outputs", strict: bool = True) -> str:
        return dd(f"""\
            # S3 open the pilot answer and check it against the question and the image
            import json, numpy as np
            from PIL import Image
            from scipy import ndimage
            case, mcq = "{case}", {self.mcq}
            q = json.load(open(f"{DATA}/{{case}}/question.json"))
            a = json.load(open(f"{out}/{{case}}/answer.json"))
            print("question:", q["question"], "| type:", q["question_type"], "| options:", q.get("options"))
            print("answer.json:", json.dumps(a, indent=1))
            g = np.asarray(Image.open(f"{DATA}/{{case}}/{{q['images'][0]}}").convert("L"), dtype=float) / 255
            lab, n = ndimage.label(g > 0.86)
            bright = int((np.asarray(ndimage.sum(np.ones_like(g), lab, range(1, n + 1))) >= 4).sum()) if n else 0
            print("image", g.shape, "bright components (>0.86, >=4 px):", bright)
            ans = str(a.get("predicted_answer", "")).strip().lower()
            fits = {{"finding": ans in ("yes", "no"), "count": ans.isdigit(),
                    "plane": ans in ("axial", "coronal", "sagittal", "oblique")}}.get(q["question_type"], len(ans) > 1)
            checks = {{"question_id": a.get("question_id") == case,
                      "not a placeholder": ans not in ("", "unknown", "n/a") and bool(a.get("raw_model_output")),
                      "answer fits the question": fits}}
            if q["question_type"] == "finding":
                checks["consistent with bright spots"] = (ans == "yes") == (bright > 0)
            if mcq:
                checks["label is an option"] = a.get("predicted_label") in q["options"]
                checks["label = answer text"] = q["options"].get(a.get("predicted_label")) == a.get("predicted_answer")
            print("checks", checks)
            """) + ("assert all(checks.values()), checks\n" if strict else "")

    def verify(self, out: str = "outputs") -> str:
        return dd(f"""\
            # S5 verify every answer
            import json
            from collections import Counter
            from pathlib import Path
            bad, answers = [], Counter()
            for p in sorted(p for p in Path("{DATA}").iterdir() if (p / "question.json").is_file()):
                q = json.loads((p / "question.json").read_text())
                f = Path("{out}") / p.name / "answer.json"
                if not f.is_file():
                    bad.append((p.name, "missing")); continue
                a = json.loads(f.read_text())
                answers[str(a.get("predicted_answer"))] += 1
                if a.get("question_id") != p.name or not a.get("raw_model_output") or \\
                        str(a.get("predicted_answer", "")).lower() in ("", "unknown", "n/a") or \\
                        (q.get("options") and a.get("predicted_label") not in q["options"]):
                    bad.append(p.name)
            print(sum(answers.values()), "answers; most common:", answers.most_common(6))
            print("problems:", bad or "none")
            """)


# =========================================================================================
class ReportKit(Kit):
    task = "cxr-report-gen"
    pilot = "study_000"
    main = "report_writer.py"
    out_file = "report.txt"
    method_words = ("rule-based report writer: frontal view, grey-level normalisation, zone densities per hemithorax "
                    "(consolidation / effusion), DoG blob responses per zone (nodules), transverse lucent lines on leg "
                    "films (fracture), robust z-scores against the cohort, templated FINDINGS / IMPRESSION")
    target = "a radiology report per study describing what its radiographs show (chest PA or tibia/ankle AP)"
    inputs_words = "manifest.json + 1-2 PNG views"
    outputs_words = "`outputs/<study_id>/report.txt`, UTF-8, FINDINGS: (+ IMPRESSION:)"
    checks_words = ("Pilot report: UTF-8, a FINDINGS section, describes the body part the manifest names (chest vs "
                    "leg), findings consistent with the image.")

    def plan_steps(self):
        return ["Read one manifest.json (body part, views, positions, indication) and its views (size, mode, bit depth, range).",
                "Write `report_writer.py` (frontal view; chest zone densities + blobs; leg lucent lines; cohort z-scores; templates).",
                "Pilot one study into outputs/<study>/report.txt.",
                "Read the pilot report back: UTF-8, FINDINGS present, matches the manifest's body part; fix if wrong.",
                "Write every study's report with the same script.",
                "Check every report.txt, then submit."]

    def files(self, bug=None, **kw):
        return {self.main: M.report_writer(bug, **kw)}

    def one(self, case, out="outputs", log=None, script=None):
        return _log(f"python {script or self.main} {DATA} {out} --only {case}", log)

    def all(self, out="outputs", log=None, script=None):
        return _log(f"python {script or self.main} {DATA} {out}", log)

    def input_look(self) -> str:
        return dd(f"""\
            # S2 check one study: views, positions, image size, bit depth, value range
            import json, numpy as np, scipy, PIL
            from collections import Counter
            from pathlib import Path
            from PIL import Image
            print("numpy", np.__version__, "scipy", scipy.__version__, "pillow", PIL.__version__)
            studies = sorted(p for p in Path("{DATA}").iterdir() if (p / "manifest.json").is_file())
            mans = [json.loads((p / "manifest.json").read_text()) for p in studies]
            print(len(studies), "studies; body parts", Counter(m["body_part"] for m in mans),
                  "; views per study", Counter(len(m["views"]) for m in mans))
            m = mans[0]
            print(json.dumps(m, indent=1))
            for v in m["views"]:
                im = Image.open(studies[0] / v["file"]); a = np.asarray(im)
                print(v["file"], v["view_position"], im.size, im.mode, a.dtype, "min/max", a.min(), a.max())
            """)

    def look(self, case: str, out: str = "outputs", strict: bool = True) -> str:
        return dd(f"""\
            # S3 read the pilot report back and check it against its study
            import json, numpy as np
            from PIL import Image
            case = "{case}"
            m = json.load(open(f"{DATA}/{{case}}/manifest.json"))
            raw = open(f"{out}/{{case}}/report.txt", "rb").read()
            text = raw.decode("utf-8")
            print(text)
            print("study", case, m["body_part"], [v["view_position"] for v in m["views"]], "|", m["indication"])
            for v in m["views"]:
                a = np.asarray(Image.open(f"{DATA}/{{case}}/{{v['file']}}").convert("L"), dtype=float)
                print(" view", v["file"], v["view_position"], a.shape, "mean", a.mean().round(1))
            findings = text.split("FINDINGS:", 1)[1].split("IMPRESSION:")[0].lower() if "FINDINGS:" in text else ""
            words = {{"CHEST": ("lung", "pleural", "cardiomediastinal"), "LEG": ("tibia", "ankle", "fracture")}}
            own = words[m["body_part"]]
            other = words["LEG" if m["body_part"] == "CHEST" else "CHEST"]
            checks = {{"utf-8, non-empty": len(text.strip()) > 20, "FINDINGS section": bool(findings.strip()),
                      "describes the imaged part": any(w in findings for w in own),
                      "nothing about another part": not any(w in findings for w in other)}}
            print("checks", checks)
            """) + ("assert all(checks.values()), checks\n" if strict else "")

    def verify(self, out: str = "outputs") -> str:
        return dd(f"""\
            # S5 verify every report
            from pathlib import Path
            bad, n = [], 0
            for p in sorted(p for p in Path("{DATA}").iterdir() if (p / "manifest.json").is_file()):
                f = Path("{out}") / p.name / "report.txt"
                if not f.is_file():
                    bad.append((p.name, "missing")); continue
                t = f.read_bytes().decode("utf-8"); n += 1
                if "FINDINGS:" not in t or len(t) > 65536:
                    bad.append(p.name)
            print(n, "reports checked; problems:", bad or "none")
            """)


# =========================================================================================
class SegKit(Kit):
    pilot = "case_000"
    inputs_words = "image.nii.gz (T1, 2 mm)"

    def one(self, case, out="outputs", log=None, script=None):
        return _log(f"python {script or self.main} {DATA}/{case}/image.nii.gz {out}/{case}", log)

    def all(self, out="outputs", log=None, script=None):
        return _log(f"for c in {DATA}/*/; do n=$(basename $c); python {script or self.main} $c/image.nii.gz "
                    f"{out}/$n || echo FAILED $n; done", log)

    def input_look(self) -> str:
        return dd(f"""\
            # S2 check the runtime and one input volume
            import numpy as np, scipy, nibabel as nib
            from pathlib import Path
            print("numpy", np.__version__, "scipy", scipy.__version__, "nibabel", nib.__version__)
            cases = sorted(p.name for p in Path("{DATA}").iterdir() if p.is_dir())
            print(len(cases), "cases:", cases)
            img = nib.load(f"{DATA}/{{cases[0]}}/image.nii.gz")
            x = np.asarray(img.dataobj)
            print("shape", x.shape, "dtype", img.get_data_dtype(), "voxel mm", img.header.get_zooms())
            print("affine\\n", img.affine.round(2), "\\norientation", nib.aff2axcodes(img.affine))
            print("intensity min/p1/p50/p99/max", np.percentile(x, [0, 1, 50, 99, 100]).round(1))
            """)


class LesionKit(SegKit):
    task = "brain-lesion-seg"
    main = "brain_lesion.py"
    method_words = ("Otsu threshold + morphology for the brain; bias correction, then white-matter intensity outliers "
                    "(robust z-score) and dark voxels confirmed by left-right asymmetry for the focal lesions "
                    "(numpy/scipy/nibabel)")
    target = ("(1) the whole brain and (2) focal white-matter lesions, as 0/1 uint8 masks on the input grid; "
              "lesion mask empty when there is no lesion")
    outputs_words = "`outputs/<case>/organ.nii.gz` and `lesion.nii.gz`, uint8 0/1, input shape and affine"
    checks_words = ("Pilot masks: input shape/affine, values {0,1}; brain volume plausible (~1-2 l); lesion inside "
                    "the brain, small and focal (well under 5 % of the brain).")

    def plan_steps(self):
        return ["Read one volume: shape, voxel size, affine/orientation, dtype, intensity range.",
                "Write `brain_common.py` + `brain_lesion.py` (Otsu brain mask; bias correction; z-score and asymmetry lesions).",
                "Pilot case_000 into outputs/case_000/.",
                "Load both pilot masks: grid, label values, brain volume, lesion size and position; fix if wrong.",
                "Run every case with the same script.",
                "Verify every case's two masks, then submit."]

    def files(self, bug=None, **kw):
        return {"brain_common.py": M.brain_common(), self.main: M.brain_lesion(bug, **kw)}

    def pilot_files(self, case, out="outputs"):
        return [f"{out}/{case}/organ.nii.gz", f"{out}/{case}/lesion.nii.gz"]

    def look(self, case: str, out: str = "outputs", strict: bool = True) -> str:
        return dd(f"""\
            # S3 inspect both pilot masks against the input
            import numpy as np, nibabel as nib
            from scipy import ndimage
            case = "{case}"
            img = nib.load(f"{DATA}/{{case}}/image.nii.gz"); x = np.asarray(img.dataobj, dtype=float)
            ml = float(np.prod(img.header.get_zooms())) / 1000
            m = {{}}
            for name in ("organ", "lesion"):
                o = nib.load(f"{out}/{{case}}/{{name}}.nii.gz"); a = np.asarray(o.dataobj)
                m[name] = a > 0
                print(name, a.shape, o.get_data_dtype(), "values", np.unique(a), "voxels", int(m[name].sum()),
                      f"= {{m[name].sum() * ml:.1f}} ml", "affine ok", bool(np.allclose(o.affine, img.affine, atol=1e-3)))
            brain, les = m["organ"], m["lesion"]
            print("brain fraction of volume", round(brain.mean(), 3), "| mean T1 in/out of brain",
                  x[brain].mean().round(1), x[~brain].mean().round(1))
            n_comp = ndimage.label(les)[1]
            print("lesion:", int(les.sum()), "voxels in", n_comp, "component(s); fraction of brain",
                  round(les.sum() / max(brain.sum(), 1), 4), "| outside brain", int((les & ~brain).sum()))
            if les.any():
                print("lesion mean T1 / brain median", round(x[les].mean() / np.median(x[brain]), 2))
            checks = {{"grid": brain.shape == x.shape == les.shape,
                      "brain 0.8-2.2 l": 800 < brain.sum() * ml < 2200,
                      "lesion inside brain": not (les & ~brain).any(),
                      "lesion focal (<5 % of brain)": les.sum() < 0.05 * brain.sum()}}
            print("checks", checks)
            """) + ("assert all(checks.values()), checks\n" if strict else "")

    def verify(self, out: str = "outputs") -> str:
        return dd(f"""\
            # S5 verify every case's masks
            import numpy as np, nibabel as nib
            from pathlib import Path
            bad, n = [], 0
            for c in sorted(p for p in Path("{DATA}").iterdir() if p.is_dir()):
                ref = nib.load(str(c / "image.nii.gz"))
                for name in ("organ", "lesion"):
                    f = Path("{out}") / c.name / f"{{name}}.nii.gz"
                    if not f.is_file():
                        bad.append((c.name, name, "missing")); continue
                    o = nib.load(str(f)); a = np.asarray(o.dataobj); n += 1
                    if a.shape != ref.shape or not np.allclose(o.affine, ref.affine, atol=1e-3) or set(np.unique(a)) - {{0, 1}}:
                        bad.append((c.name, name))
            print(n, "masks checked; problems:", bad or "none")
            """)


# =========================================================================================
class DetKit(Kit):
    task = "xray-marker-det"
    pilot = "case_001"
    main = "marker_detector.py"
    out_file = "prediction.json"
    method_words = ("white top-hat (grey opening, 25 px disc), threshold, connected components, keep round components "
                    "6-34 px across; ring vs marker by hole filling; boxes = component bounding boxes")
    target = "every radiopaque marker as a box with class `marker` (solid) or `ring` (hollow); no boxes when none"
    inputs_words = "image.png, 256x256 8-bit"
    outputs_words = "`outputs/<case>/prediction.json` {\"boxes\": [{class, score, x1, y1, x2, y2}]}"
    checks_words = ("Pilot boxes: corner coordinates inside the image, x1<x2, y1<y2, 6-34 px, classes marker/ring, "
                    "score in [0,1], box contents brighter than the image.")

    def plan_steps(self):
        return ["Read one image: size, mode, bit depth, intensity range.",
                "Write `marker_detector.py` (top-hat, threshold, components, roundness, ring by hole filling).",
                "Pilot one image into outputs/<case>/prediction.json.",
                "Print the pilot's boxes with the image size and the brightness inside each box; fix if wrong.",
                "Run every image with the same script.",
                "Verify every prediction.json, then submit."]

    def files(self, bug=None, **kw):
        return {self.main: M.marker_detector(bug)}

    def one(self, case, out="outputs", log=None, script=None):
        return _log(f"python {script or self.main} {DATA}/{case}/image.png {out}/{case}", log)

    def all(self, out="outputs", log=None, script=None):
        return _log(f"for c in {DATA}/*/; do n=$(basename $c); python {script or self.main} $c/image.png {out}/$n "
                    f"|| echo FAILED $n; done", log)

    def input_look(self) -> str:
        return dd(f"""\
            # S2 check the runtime and one image
            import numpy as np, scipy, PIL
            from pathlib import Path
            from PIL import Image
            print("numpy", np.__version__, "scipy", scipy.__version__, "pillow", PIL.__version__)
            cases = sorted(p.name for p in Path("{DATA}").iterdir() if p.is_dir())
            print(len(cases), "images")
            im = Image.open(f"{DATA}/{{cases[0]}}/image.png"); a = np.asarray(im)
            print("image", im.size, im.mode, a.dtype, "min/p50/max", a.min(), np.median(a), a.max())
            """)

    def look(self, case: str, out: str = "outputs", strict: bool = True) -> str:
        return dd(f"""\
            # S3 inspect the pilot boxes on their image
            import json, numpy as np
            from PIL import Image
            case = "{case}"
            img = np.asarray(Image.open(f"{DATA}/{{case}}/image.png").convert("L"), dtype=float)
            boxes = json.load(open(f"{out}/{{case}}/prediction.json"))["boxes"]
            h, w = img.shape
            print(len(boxes), "boxes; image", w, "x", h, "median", np.median(img))
            ok = []
            for b in boxes:
                x1, y1, x2, y2 = (int(round(b[k])) for k in ("x1", "y1", "x2", "y2"))
                inside = 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
                crop = img[y1:y2, x1:x2] if inside else np.zeros(1)
                print(b["class"], b["score"], (x1, y1, x2, y2), "size", (x2 - x1, y2 - y1), "max in box", crop.max())
                ok.append(inside and b["class"] in ("marker", "ring") and 0 <= b["score"] <= 1
                          and 6 <= x2 - x1 <= 34 and 6 <= y2 - y1 <= 34 and crop.max() > np.median(img) + 40)
            checks = {{"boxes valid and bright": all(ok), "distinct boxes": len({{tuple(b[k] for k in ("x1", "y1", "x2", "y2")) for b in boxes}}) == len(boxes)}}
            print("checks", checks)
            """) + ("assert all(checks.values()), checks\n" if strict else "")

    def verify(self, out: str = "outputs") -> str:
        return dd(f"""\
            # S5 verify every prediction.json
            import json
            from collections import Counter
            from pathlib import Path
            bad, n, cls = [], 0, Counter()
            for c in sorted(p for p in Path("{DATA}").iterdir() if p.is_dir()):
                f = Path("{out}") / c.name / "prediction.json"
                if not f.is_file():
                    bad.append((c.name, "missing")); continue
                boxes = json.loads(f.read_text())["boxes"]; n += 1
                for b in boxes:
                    cls[b["class"]] += 1
                    if not (0 <= b["x1"] < b["x2"] <= 256 and 0 <= b["y1"] < b["y2"] <= 256 and 0 <= b["score"] <= 1):
                        bad.append(c.name)
            print(n, "predictions; classes", dict(cls), "; problems:", bad or "none")
            """)


class TissueKit(SegKit):
    task = "brain-tissue-seg"
    main = "brain_tissue.py"
    out_file = "labels.nii.gz"
    method_words = ("Otsu threshold + morphology for the brain mask, bias correction, then 3 intensity classes "
                    "(k-means-initialised 1-D Gaussian mixture) on brain voxels ordered CSF < GM < WM "
                    "(numpy/scipy/nibabel)")
    target = ("one label map per T1 volume: 0 background, 1 CSF, 2 grey matter, 3 white matter (uint8, input grid)")
    outputs_words = "`outputs/<case>/labels.nii.gz`, uint8 in {0,1,2,3}, input shape and affine"
    checks_words = ("Pilot label map: input shape/affine, labels {0,1,2,3}; brain volume plausible (~1-2 l); mean T1 "
                    "rises CSF < GM < WM; GM and WM each a sizeable share of the brain, CSF the smallest.")

    def plan_steps(self):
        return ["Read one volume: shape, voxel size, affine/orientation, dtype, intensity range.",
                "Write `brain_common.py` + `brain_tissue.py` (Otsu brain mask; bias correction; 3-class intensity mixture).",
                "Pilot case_000 into outputs/case_000/labels.nii.gz.",
                "Load the pilot label map: grid, label set, volume per class, mean T1 per class in order; fix if wrong.",
                "Run every case with the same script.",
                "Verify every case's label map, then submit."]

    def files(self, bug=None, **kw):
        return {"brain_common.py": M.brain_common(), self.main: M.brain_tissue(bug)}

    def look(self, case: str, out: str = "outputs", strict: bool = True) -> str:
        return dd(f"""\
            # S3 inspect the pilot label map against the input
            import numpy as np, nibabel as nib
            case = "{case}"
            img = nib.load(f"{DATA}/{{case}}/image.nii.gz"); x = np.asarray(img.dataobj, dtype=float)
            o = nib.load(f"{out}/{{case}}/labels.nii.gz"); lab = np.asarray(o.dataobj)
            ml = float(np.prod(img.header.get_zooms())) / 1000
            print("labels", lab.shape, o.get_data_dtype(), "input", x.shape, "affine ok",
                  bool(np.allclose(o.affine, img.affine, atol=1e-3)), "values", np.unique(lab))
            means, vols = {{}}, {{}}
            for k, name in ((1, "csf"), (2, "gm"), (3, "wm")):
                m = lab == k
                vols[name] = m.sum() * ml
                means[name] = float(x[m].mean()) if m.any() else float("nan")
                print(f"{{name}}: {{int(m.sum())}} voxels = {{vols[name]:.1f}} ml, mean T1 {{means[name]:.1f}}")
            brain = sum(vols.values())
            print("brain", round(brain, 1), "ml; mean T1 outside", round(float(x[lab == 0].mean()), 1))
            checks = {{"grid": lab.shape == x.shape and bool(np.allclose(o.affine, img.affine, atol=1e-3)),
                      "label set": set(np.unique(lab).tolist()) <= {{0, 1, 2, 3}},
                      "brain 0.8-2.2 l": 800 < brain < 2200,
                      "T1 order csf < gm < wm": means["csf"] < means["gm"] < means["wm"],
                      "gm and wm sizeable": vols["gm"] > 0.2 * brain and vols["wm"] > 0.2 * brain}}
            print("checks", checks)
            """) + ("assert all(checks.values()), checks\n" if strict else "")

    def verify(self, out: str = "outputs") -> str:
        return dd(f"""\
            # S5 verify every case's label map
            import numpy as np, nibabel as nib
            from pathlib import Path
            bad, n = [], 0
            for c in sorted(p for p in Path("{DATA}").iterdir() if p.is_dir()):
                ref = nib.load(str(c / "image.nii.gz"))
                f = Path("{out}") / c.name / "labels.nii.gz"
                if not f.is_file():
                    bad.append((c.name, "missing")); continue
                o = nib.load(str(f)); a = np.asarray(o.dataobj); n += 1
                if a.shape != ref.shape or not np.allclose(o.affine, ref.affine, atol=1e-3) or set(np.unique(a)) - {{0, 1, 2, 3}}:
                    bad.append(c.name)
            print(n, "label maps checked; problems:", bad or "none")
            """)


# =========================================================================================
class ClsKit(Kit):
    task = "modality-patch-cls"
    pilot = "pt_000 pt_001 pt_002 pt_003 pt_004 pt_005 pt_006 pt_007"
    main = "classify_cases.py"
    out_file = "predictions.csv"
    per_case = False
    method_words = ("few-shot 1-nearest-neighbour on 18 hand-made image statistics (colour saturation, intensity "
                    "percentiles, dark/bright fractions, edges, texture/speckle, entropy), standardised over all public "
                    "images, against the labelled examples in _examples/ (numpy/scipy/pillow)")
    target = "the imaging modality of each 64x64 patch: one of ct, mr, xray, ultrasound, histology"
    inputs_words = "image.png, 64x64 8-bit RGB; `_examples/` is not a case"
    outputs_words = "one `outputs/predictions.csv` with header `patient_id,label`, one row per case"
    checks_words = ("Pilot rows (a few cases): every label one of the five, every pilot id exactly once, labels that "
                    "fit the patches (coloured patches -> histology), more than one class among different-looking patches.")

    def plan_steps(self):
        return ["Read one patch (size, mode, channels, range) and _examples/labels.csv (classes, examples per class).",
                "Write `patch_classifier.py` (18 statistics, standardisation over all public images, 1-NN) and "
                "`classify_cases.py` (runs it, writes the rows asked for).",
                "Pilot a few cases into outputs/predictions.csv.",
                "Read the pilot rows back next to each patch's colour/intensity statistics; fix if wrong.",
                "Classify every case with the same script.",
                "Check predictions.csv: one row per case, allowed labels, then submit."]

    def files(self, bug=None, **kw):
        return {"patch_classifier.py": M.patch_classifier(bug), self.main: M.classify_cases()}

    def pilot_files(self, case, out="outputs"):
        return [f"{out}/predictions.csv"]

    def one(self, case, out="outputs", log=None, script=None):
        return _log(f"python {script or self.main} {DATA} {out}/predictions.csv {case}", log)

    def all(self, out="outputs", log=None, script=None):
        return _log(f"python {script or self.main} {DATA} {out}/predictions.csv", log)

    def input_look(self) -> str:
        return dd(f"""\
            # S2 check the runtime, one patch and the examples
            import csv, numpy as np, scipy, PIL
            from collections import Counter
            from pathlib import Path
            from PIL import Image
            print("numpy", np.__version__, "scipy", scipy.__version__, "pillow", PIL.__version__)
            cases = sorted(p.name for p in Path("{DATA}").iterdir() if p.is_dir() and not p.name.startswith("_"))
            print(len(cases), "cases", cases[:3], "...")
            im = Image.open(f"{DATA}/{{cases[0]}}/image.png"); a = np.asarray(im)
            print("patch", im.size, im.mode, a.shape, a.dtype, "min/p50/max", a.min(), np.median(a), a.max())
            rows = list(csv.DictReader(open("{DATA}/_examples/labels.csv")))
            print(len(rows), "examples;", Counter(r["label"] for r in rows))
            """)

    def look(self, case: str, out: str = "outputs", strict: bool = True) -> str:
        return dd(f"""\
            # S3 read the pilot rows back next to their patches
            import csv, numpy as np
            from collections import Counter
            from PIL import Image
            pilot = "{case}".split()
            rows = list(csv.DictReader(open("{out}/predictions.csv")))
            allowed = {{"ct", "mr", "xray", "ultrasound", "histology"}}
            sat = {{}}
            for r in rows:
                a = np.asarray(Image.open(f"{DATA}/{{r['patient_id']}}/image.png").convert("RGB"), dtype=float) / 255
                sat[r["patient_id"]] = float((a.max(axis=2) - a.min(axis=2)).mean())
                print(r["patient_id"], r["label"], "| saturation", round(sat[r["patient_id"]], 3),
                      "mean", round(float(a.mean()), 3), "std", round(float(a.std()), 3))
            labels = Counter(r["label"] for r in rows)
            print("labels", dict(labels))
            coloured = [r for r in rows if sat[r["patient_id"]] > 0.1]
            checks = {{"ids once": sorted(r["patient_id"] for r in rows) == sorted(pilot),
                      "labels allowed": set(labels) <= allowed,
                      "coloured patches are histology": all(r["label"] == "histology" for r in coloured),
                      "more than one class": len(labels) > 1}}
            print("checks", checks)
            """) + ("assert all(checks.values()), checks\n" if strict else "")

    def verify(self, out: str = "outputs") -> str:
        return dd(f"""\
            # S5 verify predictions.csv
            import csv
            from collections import Counter
            from pathlib import Path
            cases = sorted(p.name for p in Path("{DATA}").iterdir() if p.is_dir() and not p.name.startswith("_"))
            rows = list(csv.DictReader(open("{out}/predictions.csv")))
            ids = Counter(r["patient_id"] for r in rows)
            bad = [c for c in cases if ids[c] != 1] + [r["patient_id"] for r in rows
                   if r["label"] not in ("ct", "mr", "xray", "ultrasound", "histology")]
            print(len(rows), "rows for", len(cases), "cases; labels", dict(Counter(r["label"] for r in rows)))
            print("problems:", bad or "none")
            """)


KITS: dict[str, Kit] = {
    "ldct-denoise": EnhanceKit("ldct-denoise", "denoise"),
    "mri-sr": EnhanceKit("mri-sr", "super_resolution"),
    "zsr-x4-demo": ZsrKit(),
    "vqa-demo-open": VqaKit("vqa-demo-open", mcq=False),
    "vqa-demo-mcq": VqaKit("vqa-demo-mcq", mcq=True),
    "cxr-report-gen": ReportKit(),
    "brain-lesion-seg": LesionKit(),
    "xray-marker-det": DetKit(),
    "brain-tissue-seg": TissueKit(),
    "modality-patch-cls": ClsKit(),
}
