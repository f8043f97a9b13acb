"""Code the built-in scripted agents send through execute_code on classification tasks.

reference: installs the few-shot nearest-neighbour classifier (methods/patch_classifier.py),
           checks one input and the published labelled examples, pilots it on ONE case (a pilot
           of a few cases is a batch on a small set: docs/judge.md "Units, pilot, batch"),
           inspects its label, classifies every case into outputs/predictions.csv, verifies
           one row per case with allowed labels.
careless:  the same classifier, but it writes class ids through an off-by-one label map
           (ids treated as 1-based), so every label is shifted to the next class — the
           confusion matrix shows the shift and per-class recall collapses.
"""
from __future__ import annotations

import textwrap

from ..scripted_code import case_dirs, image_setup, method_source
from .options import ClassificationOptions


class ClassificationMethods:
    def __init__(self, options: ClassificationOptions):
        self.o = options
        self.method = options.reference_method or ""   # a file in methods/
        self.module = self.method.removesuffix(".py")

    def plan_steps(self) -> list[str]:
        return ["Inspect one input patch (size, channels, range) and the labelled examples in _examples/.",
                "Features: 18 image statistics (colour saturation, intensity percentiles, edges, "
                "texture/speckle, entropy, smoothness), standardised over all public images.",
                "Label = the label of the nearest labelled example (1-NN); no case label is used.",
                "Pilot ONE case; check its label comes from the allowed set.",
                f"Classify every case into outputs/{self.o.output_file} ({self.o.key},{self.o.label_column}).",
                "Verify one row per case, then submit."]

    def setup_code(self, data_dir: str) -> str:
        return image_setup(data_dir, self.method, method_source(__package__, self.method), self.o.image_file,
                           what="classifier", after=f"""\
            import csv
            examples = pathlib.Path({data_dir!r}) / "_examples" / "labels.csv"
            rows = list(csv.DictReader(open(examples))) if examples.is_file() else []
            print(len(rows), "labelled examples:", sorted({{r["label"] for r in rows}}) or "none (the method needs them)")
            """)

    def pilot_code(self, data_dir: str) -> str:
        return textwrap.dedent(f"""\
            # S3 pilot: classify ONE case into outputs/{self.o.output_file}
            import csv, pathlib, sys
            sys.path.insert(0, ".")
            import {self.module} as method
            cases = {case_dirs(data_dir)}[:1]
            labels = method.classify({data_dir!r}, cases, {self.o.image_file!r})
            pathlib.Path("outputs").mkdir(exist_ok=True)
            with open("outputs/{self.o.output_file}", "w", newline="") as fh:
                csv.writer(fh).writerows([({self.o.key!r}, {self.o.label_column!r}), *zip([c.name for c in cases], labels)])
            print("pilot rows written:", len(cases))
            """)

    def inspect_code(self, data_dir: str) -> str:
        return textwrap.dedent(f"""\
            # S3 inspect the pilot file: header, one row per case, labels from the allowed set
            import csv
            from collections import Counter
            rows = list(csv.DictReader(open("outputs/{self.o.output_file}")))
            print(len(rows), "rows", rows[:2])
            assert all(r[{self.o.label_column!r}] in {list(self.o.labels)!r} for r in rows), rows
            assert len({{r[{self.o.key!r}] for r in rows}}) == len(rows), "duplicate ids"
            print(Counter(r[{self.o.label_column!r}] for r in rows))
            """)

    def batch_code(self, data_dir: str, careless: bool) -> str:
        write = ("rows = [(c.name, classes[(classes.index(p) + 1) % len(classes)]) for c, p in zip(cases, preds)]"
                 "  # (bug) ids treated as 1-based" if careless else
                 "rows = [(c.name, p) for c, p in zip(cases, preds)]")
        return "\n".join([
            "# S4 classify every case into one cohort file",
            "import csv, pathlib, sys",
            "sys.path.insert(0, '.')",
            f"import {self.module} as method",
            f"cases = {case_dirs(data_dir)}",
            f"preds = method.classify({data_dir!r}, cases, {self.o.image_file!r})",
            "classes = sorted(set(preds))",
            write,
            "pathlib.Path('outputs').mkdir(exist_ok=True)",
            f"with open('outputs/{self.o.output_file}', 'w', newline='') as fh:",
            "    w = csv.writer(fh)",
            f"    w.writerow([{self.o.key!r}, {self.o.label_column!r}])",
            "    w.writerows(rows)",
            "print('done', len(rows), 'cases')", ""])

    def verify_code(self, data_dir: str) -> str:
        return textwrap.dedent(f"""\
            # S5 verify: one row per case, allowed labels only
            import csv, pathlib
            cases = {{p.name for p in {case_dirs(data_dir)}}}
            rows = list(csv.DictReader(open("outputs/{self.o.output_file}")))
            ids = [r[{self.o.key!r}] for r in rows]
            bad = [r for r in rows if r[{self.o.label_column!r}] not in {list(self.o.labels)!r}]
            print(len(cases), "cases,", len(rows), "rows; missing:", sorted(cases - set(ids))[:5] or "none",
                  "duplicates:", len(ids) - len(set(ids)), "bad labels:", len(bad))
            """)
