"""The one OpenAI-compatible client and the registry of model endpoints.

Used by the LLM agent loop (`agents/llm.py`), the LLM judge of S1-S3
(`scoring/judge/llm.py`) and the VQA answer judge:

    from automedbench.llm import get_endpoint, ChatClient
    cfg = get_endpoint("gpt-4.1"); cfg.check_ready()
    reply = ChatClient(cfg).complete(messages)
"""
from .client import ChatClient, ChatReply, ProviderError
from .registry import AgentConfig, EndpointConfig, LLMConfigError, get_agent_config, load_agent_configs

get_endpoint = get_agent_config
load_endpoints = load_agent_configs

__all__ = ["AgentConfig", "ChatClient", "ChatReply", "EndpointConfig", "LLMConfigError", "ProviderError",
           "get_agent_config", "get_endpoint", "load_agent_configs", "load_endpoints"]
