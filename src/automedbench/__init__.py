"""AutoMedBench: score LLM coding agents on medical-AI research workflows."""
__version__ = "0.1.0"
