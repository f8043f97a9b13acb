"""Aggregation of detail reports, the static leaderboard site and the terminal runs table.

    reports = collect_reports([Path("runs/")])      # list[DetailReport] + .warnings, .run_dirs
    board = aggregate(reports)                       # pure: means, CIs, failure rates, errors
    index = write_leaderboard(reports, "site/")      # leaderboard.json/.csv, index.html, PNGs
    console.print(runs_table(reports))
"""
from .aggregate import Leaderboard, aggregate
from .collect import ReportList, collect_reports
from .leaderboard import write_leaderboard
from .table import runs_table

__all__ = ["collect_reports", "aggregate", "write_leaderboard", "runs_table",
           "Leaderboard", "ReportList"]
