"""Code the built-in scripted agents send through execute_code for VQA tasks.

reference: writes the rule-based answerer (methods/vqa_rules.py) into the workspace, checks one
question.json and its image, pilots ONE question and inspects its answer.json, answers every
question, verifies every answer before submitting.
careless: the same answerer with its bug switched on — questions its lesion rules do not cover
get the placeholder "unknown" and an empty raw_model_output ("fill in later"), which the scorer
flags ("placeholder" -> PLACEHOLDER_OUTPUT) and scores 0.
"""
from __future__ import annotations

import textwrap
from importlib import resources

from .options import ANSWER_FILE, VQAOptions

METHOD_FILE = "vqa_rules.py"


def _method_source(name: str) -> str:
    return resources.files("automedbench.tracks.vqa.methods").joinpath(name).read_text()


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
        return textwrap.dedent(f"""\
            # S2 setup: install the answerer, check the runtime and ONE input
            import json, pathlib, numpy, scipy, PIL
            from PIL import Image
            pathlib.Path({METHOD_FILE!r}).write_text({_method_source(source)!r})
            print("numpy", numpy.__version__, "scipy", scipy.__version__, "pillow", PIL.__version__)
            first = sorted(p for p in pathlib.Path({data_dir!r}).iterdir() if (p / "question.json").is_file())[0]
            q = json.loads((first / "question.json").read_text())
            print("question", q["question_id"], "fields", sorted(q), "options", q.get("options"))
            img = Image.open(first / q["images"][0])
            print("image", q["images"][0], "size", img.size, "mode", img.mode)
            """)

    def pilot_code(self, data_dir: str) -> str:
        return textwrap.dedent(f"""\
            # S3 pilot: ONE question end to end
            import pathlib, vqa_rules
            first = sorted(p.name for p in pathlib.Path({data_dir!r}).iterdir() if (p / "question.json").is_file())[0]
            print(vqa_rules.run(pathlib.Path({data_dir!r}), pathlib.Path("outputs"), only=[first]), "answered:", first)
            """)

    def inspect_code(self, data_dir: str) -> str:
        return textwrap.dedent(f"""\
            # S3 inspect the pilot's answer.json against its question
            import json, pathlib
            out = sorted(pathlib.Path("outputs").iterdir())[0]
            a = json.loads((out / {ANSWER_FILE!r}).read_text())
            q = json.loads((pathlib.Path({data_dir!r}) / out.name / "question.json").read_text())
            print("question:", q["question"]); print("answer:", a)
            assert a["question_id"] == q["question_id"], "question_id mismatch"
            if q.get("options"):
                assert a["predicted_label"] in q["options"], "label not among the options"
            assert a["predicted_answer"].strip().lower() not in ("", "unknown", "n/a"), "placeholder answer"
            assert a["raw_model_output"].strip(), "raw_model_output is empty"
            print("pilot answer looks valid")
            """)

    def batch_code(self, data_dir: str, careless: bool) -> str:
        return textwrap.dedent(f"""\
            # S4 answer every question
            import pathlib, vqa_rules
            n = vqa_rules.run(pathlib.Path({data_dir!r}), pathlib.Path("outputs"), careless={careless!r})
            print(n, "questions answered")
            """)

    def verify_code(self, data_dir: str) -> str:
        return textwrap.dedent(f"""\
            # S5 verify every expected answer exists, parses and names its question
            import json, pathlib
            ids = sorted(p.name for p in pathlib.Path({data_dir!r}).iterdir() if (p / "question.json").is_file())
            bad = []
            for qid in ids:
                f = pathlib.Path("outputs") / qid / {ANSWER_FILE!r}
                try:
                    a = json.loads(f.read_text())
                    ok = a.get("question_id") == qid and isinstance(a.get("predicted_answer"), str)
                except (OSError, ValueError):
                    ok = False
                if not ok:
                    bad.append(qid)
            print(len(ids) - len(bad), "of", len(ids), "answers valid; bad:", bad[:10])
            """)
