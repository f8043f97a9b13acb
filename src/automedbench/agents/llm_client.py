"""Moved to `automedbench.llm.client` (the agent loop, the LLM judge and the VQA answer
judge share it); this module keeps the old import path."""
from ..llm.client import (ChatClient, ChatReply, ProviderError, backoff_delay, parse_retry_after,  # noqa: F401
                          redact)
