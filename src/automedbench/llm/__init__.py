"""The one OpenAI-compatible client and the registry of model endpoints.

Used by the LLM agent loop (`agents/llm.py`), the LLM judge of S1-S3
(`scoring/judge/llm.py`) and the VQA answer judge:

    from automedbench.llm import get_agent_config, ChatClient
    cfg = get_agent_config("gpt-4.1"); cfg.check_ready()
    reply = ChatClient(cfg).complete(messages)
"""
from .client import ChatClient, ChatReply, ProviderError
from .registry import AgentConfig, LLMConfigError, get_agent_config, load_agent_configs

__all__ = ["AgentConfig", "ChatClient", "ChatReply", "LLMConfigError", "ProviderError",
           "get_agent_config", "load_agent_configs"]
