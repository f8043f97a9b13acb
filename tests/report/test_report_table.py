from __future__ import annotations

from rich.console import Console

from automedbench.report import collect_reports, runs_table


def _render(table) -> str:
    c = Console(width=250, record=True, color_system=None)
    c.print(table)
    return c.export_text()


def test_columns_and_values(make_report):
    rep = make_report("r1", agent="alpha", stages={"s1": 1.0, "s2": None, "s3": 0.5, "s4": 1.0, "s5": 1.0},
                      task_score=0.25, medal="good", rating="A")
    t = runs_table([rep], {"r1": "/runs/r1"})
    headers = [c.header for c in t.columns]
    assert headers == ["agent", "task", "tier", "S1", "S2", "S3", "S4", "S5", "agentic",
                       "task score", "overall", "medal", "rating", "run dir"]
    text = _render(t)
    assert "alpha" in text and "100.0" in text and "—" in text and "25.0" in text
    assert "good" in text and "/runs/r1" in text


def test_markup_in_names_is_literal_and_flags_shown(make_report):
    rep = make_report("r1", agent="[bold red]evil[/bold red]", sandbox="local (no isolation)",
                      disqualified=True)
    text = _render(runs_table([rep]))
    assert "[bold red]evil[/bold red]" in text
    assert "[DQ]" in text and "[no isolation]" in text


def test_uses_run_dirs_from_collect(tmp_path, make_report, make_run):
    d = make_run(tmp_path, make_report("r1"))
    reps = collect_reports([tmp_path])
    assert str(d) in _render(runs_table(reps))
    assert str(d) in _render(runs_table(reps[:1]))


def test_fits_80_and_120_columns_without_cutting_scores(make_report):
    """A terminal of 80 or 120 columns gets every score in full (was `66…` below ~190)."""
    reps = [make_report(f"r{i}", agent=agent, task="brain-lesion-seg-with-a-long-name", tier="standard",
                        stages={"s1": 0.667, "s2": 1.0, "s3": 0.5, "s4": 1.0, "s5": None},
                        task_score=0.9623, medal="good", rating="A")
            for i, agent in enumerate(["reference", "careless-agent-with-a-long-registry-name"])]
    for width, score in ((80, "67"), (120, "66.7")):
        c = Console(width=width, record=True, color_system=None)
        c.print(runs_table(reps, {"r0": "/runs/a/very/long/run/dir/r0"}, width=width))
        text = c.export_text()
        assert max(len(line) for line in text.splitlines()) <= width, text
        assert "…" not in text, text
        assert text.count(score) == 2 and "—" in text, text   # S1 and the null S5 in full, on each row
        assert "96" in text and "reference" in text
