"""The model gateway (docs/agents.md "CLI agents behind the gateway"): a harness-side HTTP server
on a Unix socket, bound into the sandbox, that answers an agent's OpenAI-compatible
chat-completions requests by asking the run's configured endpoint with the harness's key (the key
never enters the sandbox), counting tokens, cost and limits per run; and the tiny forwarder that
an agent speaking only TCP reaches on 127.0.0.1 inside the sandbox's own network namespace."""
from .forwarder import FORWARDER_SOURCE
from .meter import ChatMeter, GatewayRefusal
from .server import Gateway

__all__ = ["ChatMeter", "FORWARDER_SOURCE", "Gateway", "GatewayRefusal"]
