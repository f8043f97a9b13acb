"""The docker backend: the sandbox's container, the engine it talks to, the agent image."""
from .backend import DockerSandbox, check_image, find_engine, score_in_container

__all__ = ["DockerSandbox", "check_image", "find_engine", "score_in_container"]
