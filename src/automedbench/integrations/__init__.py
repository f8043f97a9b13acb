"""Outside frameworks that drive an AutoMedBench run (docs/agents.md): each opens, drives and
closes the run through the lifecycle, so its records and judgement are those of our own loop."""
