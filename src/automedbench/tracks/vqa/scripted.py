"""The calls the built-in scripted agents send for VQA tasks: the step scripts in methods/steps/,
run with JSON arguments (tracks/scripted_code.py).

reference: writes the rule-based answerer (methods/vqa_rules.py) into the workspace, checks one
question.json and its image, pilots ONE question and inspects its answer.json, answers every
question, verifies every answer before submitting.
careless: the same answerer with its bug switched on — questions its lesion rules do not cover
get the placeholder "unknown" and an empty raw_model_output ("fill in later"), which the scorer
flags ("placeholder" -> PLACEHOLDER_OUTPUT) and scores 0.
"""
from __future__ import annotations

from ..scripted_code import launch, method_source
from .options import ANSWER_FILE, VQAOptions

METHOD_FILE = "vqa_rules.py"


class VQAScriptedMethods:
    def __init__(self, options: VQAOptions) -> None:
        self.options = options

    def plan_steps(self) -> list[str]:
        return ["Read one question.json and its image: fields, options, image size and mode.",
                "Recognise the question kind from its text (count, finding, plane, modality, region).",
                ("Answer with classical rules on the image (bright components, mirror symmetry, "
                 "colour and darkness statistics); map to an option label for MCQ."),
                "Pilot ONE question, open its answer.json: question_id, label in options, no placeholder.",
                "Answer every question into outputs/<question_id>/answer.json.",
                "Verify every answer.json parses and matches its question_id, then submit."]

    def setup_code(self, data_dir: str) -> str:
        source = self.options.reference_method or METHOD_FILE
        return launch("S2 setup: install the answerer, check the runtime and ONE input", __package__, "s2_setup.py",
                      {"data_dir": data_dir}, {METHOD_FILE: method_source(__package__, source)})

    def pilot_code(self, data_dir: str) -> str:
        return launch("S3 pilot: ONE question end to end", __package__, "s3_pilot.py", {"data_dir": data_dir})

    def inspect_code(self, data_dir: str) -> str:
        return launch("S3 inspect the pilot's answer.json against its question", __package__, "s3_inspect.py",
                      {"data_dir": data_dir, "answer_file": ANSWER_FILE})

    def batch_code(self, data_dir: str, careless: bool) -> str:
        return launch("S4 answer every question", __package__, "s4_batch.py", {"data_dir": data_dir, "careless": careless})

    def verify_code(self, data_dir: str) -> str:
        return launch("S5 verify every expected answer exists, parses and names its question", __package__,
                      "s5_verify.py", {"data_dir": data_dir, "answer_file": ANSWER_FILE})
