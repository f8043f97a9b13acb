"""The report-generation track's method: the rule-based report writer its scripted agents copy into the sandbox."""
