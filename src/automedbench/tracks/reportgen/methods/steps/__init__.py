"""The report-generation track's step scripts for its scripted agents (tracks/scripted_code.py)."""
