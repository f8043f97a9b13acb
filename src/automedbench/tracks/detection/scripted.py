"""Code the built-in scripted agents send through execute_code on detection tasks.

reference: installs the classical marker detector (methods/marker_detector.py), checks one
           input, pilots one case, inspects its boxes against the image size, runs the batch
           in one process, verifies every case has a prediction.json.
careless:  the same detector, but its batch "converts to COCO format" and writes (x, y, w, h)
           under the x1/y1/x2/y2 keys — a classic box-format bug. Every image with a finding
           then fails the format check ("looks like (x, y, w, h)"), and the mAP collapses.
"""
from __future__ import annotations

import textwrap

from ..scripted_code import case_dirs, image_setup, method_source
from .options import DetectionOptions


# the classes marker_detector.py names; a task with other classes needs one class (every box gets it)
DETECTOR_CLASSES = ("marker", "ring")


class DetectionMethods:
    def __init__(self, options: DetectionOptions):
        self.o = options
        self.method = options.reference_method or ""   # a file in methods/
        self.module = self.method.removesuffix(".py")
        # every box gets the task's first class unless the task's classes are the detector's own
        self.as_class = None if set(options.classes) == set(DETECTOR_CLASSES) else options.classes[0]

    def plan_steps(self) -> list[str]:
        return ["Inspect one input: image size, bit depth, intensity range.",
                "Detector: white top-hat (25 px disc) to isolate small dense objects, threshold, "
                "connected components, keep round components 6-34 px across.",
                "Class: ring when filling holes adds >= 15 % (hollow centre), else marker; "
                "score = contrast x roundness in [0, 1].",
                "Pilot ONE case; check the boxes are corner coordinates inside the image.",
                f"Run every case into outputs/<case_id>/{self.o.output_file}.",
                "Verify every case has a valid file, then submit."]

    def setup_code(self, data_dir: str) -> str:
        return image_setup(data_dir, self.method, method_source(__package__, self.method), self.o.image_file,
                           what="detector")

    def pilot_code(self, data_dir: str) -> str:
        return textwrap.dedent(f"""\
            # S3 pilot ONE case end to end
            import pathlib, subprocess, sys
            case = {case_dirs(data_dir)}[0]
            r = subprocess.run([sys.executable, {self.method!r}, str(case / {self.o.image_file!r}),
                                f"outputs/{{case.name}}", *{[self.as_class] if self.as_class else []!r}],
                               capture_output=True, text=True)
            print(r.stdout, r.stderr); print("pilot exit", r.returncode)
            """)

    def inspect_code(self, data_dir: str) -> str:
        return textwrap.dedent(f"""\
            # S3 inspect the pilot's boxes against its image
            import json, pathlib
            from PIL import Image
            case = {case_dirs(data_dir)}[0]
            w, h = Image.open(case / {self.o.image_file!r}).size
            boxes = json.loads((pathlib.Path("outputs") / case.name / {self.o.output_file!r}).read_text())["boxes"]
            for b in boxes:
                print(b)
                assert 0 <= b["x1"] < b["x2"] <= w and 0 <= b["y1"] < b["y2"] <= h, "box outside the image"
                assert 0 <= b["score"] <= 1 and b["class"] in {list(self.o.classes)!r}
            print(len(boxes), "boxes OK for a", w, "x", h, "image")
            """)

    def batch_code(self, data_dir: str, careless: bool) -> str:
        bug = textwrap.dedent("""\
            for b in boxes:  # (bug) "COCO format": width/height written where x2/y2 belong
                b["x2"], b["y2"] = b["x2"] - b["x1"], b["y2"] - b["y1"]
            """) if careless else ""
        return "\n".join([
            "# S4 inference on every case (one process)",
            "import json, pathlib, sys",
            "import numpy as np",
            "from PIL import Image",
            "sys.path.insert(0, '.')",
            f"import {self.module} as method",
            f"cases = {case_dirs(data_dir)}",
            "for case in cases:",
            f"    img = np.asarray(Image.open(case / {self.o.image_file!r}).convert('L'), dtype=np.float32) / 255.0",
            "    boxes = method.detect(img)",
            *([f"    boxes = [{{**b, 'class': {self.as_class!r}}} for b in boxes]"] if self.as_class else []),
            textwrap.indent(bug, "    "),
            "    out = pathlib.Path('outputs') / case.name",
            "    out.mkdir(parents=True, exist_ok=True)",
            f"    (out / {self.o.output_file!r}).write_text(json.dumps({{'boxes': boxes}}))",
            "print('done', len(cases), 'cases')", ""])

    def verify_code(self, data_dir: str) -> str:
        return textwrap.dedent(f"""\
            # S5 verify every case before submitting
            import json, pathlib
            cases = {case_dirs(data_dir)}
            bad = []
            for case in cases:
                f = pathlib.Path("outputs") / case.name / {self.o.output_file!r}
                try:
                    json.loads(f.read_text())["boxes"]
                except Exception as exc:
                    bad.append((case.name, str(exc)[:80]))
            print(len(cases), "cases;", "problems:", bad or "none")
            """)
