"""The calls the built-in scripted agents send on detection tasks: the step scripts in
methods/steps/ (and the shared image setup and pilot), run with JSON arguments (tracks/scripted_code.py).

reference: installs the classical marker detector (methods/marker_detector.py), checks one
           input, pilots one case, inspects its boxes against the image size, runs the batch
           in one process, verifies every case has a prediction.json.
careless:  the same detector, but its batch "converts to COCO format" and writes (x, y, w, h)
           under the x1/y1/x2/y2 keys — a classic box-format bug. Every image with a finding
           then fails the format check ("looks like (x, y, w, h)"), and the mAP collapses.
"""
from __future__ import annotations

from ..scripted_code import SHARED, launch, method_source
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
        return launch("S2 setup: install the detector, check the runtime and one input", SHARED, "s2_image_setup.py",
                      {"data_dir": data_dir, "image_file": self.o.image_file, "examples": None},
                      {self.method: method_source(__package__, self.method)})

    def pilot_code(self, data_dir: str) -> str:
        return launch("S3 pilot ONE case end to end", SHARED, "s3_pilot.py",
                      {"data_dir": data_dir, "method": self.method, "input_file": self.o.image_file,
                       "extra": [self.as_class] if self.as_class else []})

    def inspect_code(self, data_dir: str) -> str:
        return launch("S3 inspect the pilot's boxes against its image", __package__, "s3_inspect.py",
                      {"data_dir": data_dir, "image_file": self.o.image_file, "output_file": self.o.output_file,
                       "classes": list(self.o.classes)})

    def batch_code(self, data_dir: str, careless: bool) -> str:
        return launch("S4 inference on every case (one process)", __package__, "s4_batch.py",
                      {"data_dir": data_dir, "module": self.module, "image_file": self.o.image_file,
                       "output_file": self.o.output_file, "as_class": self.as_class, "careless": careless})

    def verify_code(self, data_dir: str) -> str:
        return launch("S5 verify every case before submitting", __package__, "s5_verify.py",
                      {"data_dir": data_dir, "output_file": self.o.output_file})
