"""The calls the built-in scripted agents send for report-generation tasks: the step scripts in
methods/steps/, run with JSON arguments (tracks/scripted_code.py).

reference: writes the rule-based report writer (methods/report_writer.py) into the workspace,
checks one study's manifest and views, pilots ONE study, reads the report back, runs all,
verifies every report exists. careless: same writer with --careless (it ignores the body part
and treats every study as a chest film: the leg studies get chest reports), no pilot.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..scripted_code import launch, method_source

if TYPE_CHECKING:
    from .options import ReportGenOptions

METHOD_FILE = "report_writer.py"


class ReportScriptedMethods:
    def __init__(self, options: ReportGenOptions):
        self.output_file = options.output_file

    def plan_steps(self) -> list[str]:
        return [
            "Read each study's manifest.json: body part, views and their positions.",
            "Pick the frontal view (PA/AP) and normalise its grey levels.",
            ("Chest: measure lower-zone and basal density per hemithorax (consolidation, effusion) "
            "and blob responses per zone (nodules); leg: transverse lucent lines across the tibial shaft."),
            "Compare every feature with the cohort (robust z-score) and threshold it into findings.",
            "Write FINDINGS + IMPRESSION sentences per study into outputs/<study_id>/report.txt.",
            "Pilot one study, read the report back, then run all and verify every report exists.",
        ]

    def setup_code(self, data_dir: str) -> str:
        return launch("S2 setup: install the method, check the runtime and one input", __package__, "s2_setup.py",
                      {"data_dir": data_dir}, {METHOD_FILE: method_source(__package__, METHOD_FILE)})

    def pilot_code(self, data_dir: str) -> str:
        return launch("S3 pilot ONE case end to end", __package__, "s3_pilot.py", {"data_dir": data_dir})

    def inspect_code(self, data_dir: str) -> str:
        return launch("S3 inspect the pilot output against its input", __package__, "s3_inspect.py",
                      {"data_dir": data_dir, "output_file": self.output_file})

    def batch_code(self, data_dir: str, careless: bool) -> str:
        return launch("S4 inference on every case", __package__, "s4_batch.py", {"data_dir": data_dir, "careless": careless})

    def verify_code(self, data_dir: str) -> str:
        return launch("S5 verify every case before submitting", __package__, "s5_verify.py",
                      {"data_dir": data_dir, "output_file": self.output_file})
