"""The registry of model endpoints: named endpoint + model + pricing + limits, from YAML.

One entry serves as an LLM *agent* (`--agent NAME`), an LLM *judge* of S1-S3
(`--judge NAME`) and, later, the answer judge of open VQA questions.

Files, a later entry merged over an earlier one of the same `name` (only the fields it
sets change; mappings such as `limits` merge key by key):
  1. the built-in examples `llm/endpoints.yaml` (shipped with the package),
  2. every file in `AUTOMEDBENCH_AGENTS` (os.pathsep-separated),
  3. the files passed explicitly (`--agent-config FILE`).

Each file holds a list under `agents:`. The field names of `AgentConfig` are a public
contract. Secrets never live in these files: `api_key_env` names the environment
variable that holds the key, read in the harness process when a run starts (never passed
into the sandbox). A literal `api_key` is rejected.

`vision: true` lets a judge see plan.png. `check_ready()` says, before any paid call,
whether the environment variables an entry names are set.
"""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, ValidationError,
                      field_validator, model_serializer, model_validator)

from .. import yamlfile
from ..errors import UserError, first_field_error

BUILTIN_FILE = Path(__file__).with_name("endpoints.yaml")
ENV_FILES = "AUTOMEDBENCH_AGENTS"

# Header names whose values are credentials: they must be written as "${ENV_NAME}".
_SECRET_HEADERS = re.compile(r"authorization|api[-_]?key|token|secret|cookie", re.IGNORECASE)
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_LITERAL_KEY_FIELDS = ("api_key", "key", "apikey", "token", "secret", "password", "openai_api_key")


class LLMConfigError(UserError, ValueError):
    """An endpoint entry is malformed, unknown, or names an env var that is not set. The
    message names the file and the field (or the variable). A user error: the CLI prints
    it as one line and exits 2."""


AgentConfigError = LLMConfigError     # the name this error had when it lived in agents/

# What runs the model's turns (docs/agents.md): our own loop ("llm"), or an outside scaffold
# whose actions run in our sandbox as recorded calls, or an agent's own CLI in the sandbox behind
# the model gateway ("cli": docs/agents.md "CLI agents behind the gateway").
AGENT_KINDS = ("llm", "mini-swe-agent", "cli")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Pricing(_Strict):
    """USD per million tokens. `cached_input_per_mtok` defaults to the input price."""
    input_per_mtok: float = Field(0.0, ge=0)
    output_per_mtok: float = Field(0.0, ge=0)
    cached_input_per_mtok: float | None = Field(None, ge=0)

    def cost(self, tokens_in: int, tokens_out: int, tokens_cached: int = 0) -> float:
        cached = max(0, min(tokens_cached or 0, tokens_in))
        cached_rate = self.input_per_mtok if self.cached_input_per_mtok is None else self.cached_input_per_mtok
        return ((tokens_in - cached) * self.input_per_mtok + cached * cached_rate
                + tokens_out * self.output_per_mtok) / 1_000_000


class Limits(_Strict):
    """Run limits enforced by the LLM agent loop (None = no limit from the agent side;
    the task's own max_turns / time limit still apply through the ToolBox)."""
    max_turns: int | None = Field(None, ge=1)
    wall_time_s: float | None = Field(None, gt=0)
    max_total_tokens: int | None = Field(None, ge=1)
    max_cost_usd: float | None = Field(None, gt=0)


class Retry(_Strict):
    """Retries of one model request on 429 / 5xx / connection errors / timeouts / bad bodies."""
    max_retries: int = Field(5, ge=0)
    backoff_base_s: float = Field(1.0, ge=0)
    backoff_max_s: float = Field(60.0, ge=0)
    retry_after_max_s: float = Field(120.0, ge=0, description="cap on an honoured Retry-After")


class AgentConfig(_Strict):
    """One model endpoint entry (the field names are a public contract)."""
    name: str
    kind: str = Field("llm", description="who runs the turns: 'llm' (our loop) or an outside scaffold "
                                         "(docs/agents.md)")
    scaffold_config: str | None = Field(None, description="the scaffold's own configuration file (for "
                                                           "mini-swe-agent: its YAML), relative to this file")
    model: str
    base_url: str
    api_key_env: str | None = None
    description: str = ""
    pricing: Pricing = Field(default_factory=Pricing)
    max_tokens: int | None = Field(4096, ge=1)
    temperature: float | None = Field(None, ge=0, le=2)
    extra_body: dict[str, Any] | None = None
    headers: dict[str, str] | None = None
    timeout_s: float = Field(300.0, gt=0, description="HTTP timeout of one model request")
    limits: Limits = Field(default_factory=Limits)
    retry: Retry = Field(default_factory=Retry)
    nudges: int = Field(1, ge=0, description="text-only replies answered with a nudge before the run ends")
    max_continuations: int = Field(3, ge=0, description="consecutive 'continue' prompts after finish_reason=length")
    tool_result_chars: int = Field(16000, ge=200, description="size of a tool result fed back to the model")
    tool_results_as: Literal["tool", "user"] = Field(
        "tool", description="'user' sends tool results as a user message, for chat formats that drop "
                            "role:tool messages (llama-cpp-python chatml-function-calling)")
    vision: bool = Field(False, description="the model accepts image_url parts (judges: see plan.png)")
    source: str | None = Field(None, exclude=True, description="file this entry came from")

    @field_validator("name")
    @classmethod
    def _slug(cls, v: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.:-]*", v):
            raise ValueError("must be letters, digits, '-', '_', '.', ':'")
        return v

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, v: str) -> str:
        if v not in AGENT_KINDS:
            raise ValueError(f"unknown kind {v!r}; known: {', '.join(AGENT_KINDS)}")
        return v

    @model_validator(mode="after")
    def _scaffold_file(self) -> "AgentConfig":
        """A scaffold's file is read relative to the entry's own file, and must exist now."""
        if self.scaffold_config is None:
            return self
        if self.kind == "llm":
            raise ValueError("scaffold_config is for an outside scaffold's entry (kind: mini-swe-agent), "
                             "not for our own loop (kind: llm)")
        path = Path(self.scaffold_config).expanduser()
        if not path.is_absolute() and self.source:
            path = Path(self.source).parent / path
        if not path.is_file():
            raise ValueError(f"scaffold_config: file {str(path)!r} does not exist")
        self.scaffold_config = str(path.resolve())
        return self

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """An entry of our own loop dumps as it did before kinds existed, so its configuration
        hash is unchanged; a scaffold's entry adds its kind, its file and that file's sha256 (its
        content is part of what runs: docs/agents.md)."""
        data: dict[str, Any] = handler(self)
        if self.kind == "llm":
            data.pop("kind", None)
            data.pop("scaffold_config", None)
        elif self.scaffold_config is not None:
            data["scaffold_config_sha256"] = hashlib.sha256(Path(self.scaffold_config).read_bytes()).hexdigest()
        return data

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, v: str | None) -> str | None:
        if v is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v):
            raise ValueError("must be the NAME of an environment variable (e.g. OPENAI_API_KEY), not a key")
        return v

    @field_validator("base_url")
    @classmethod
    def _url(cls, v: str) -> str:
        if not re.match(r"https?://", v):
            raise ValueError("must start with http:// or https://")
        return v.rstrip("/")

    @field_validator("headers")
    @classmethod
    def _headers_no_secrets(cls, v: dict[str, str] | None) -> dict[str, str] | None:
        for k, val in (v or {}).items():
            last = val.strip().split()[-1] if val.strip() else val
            if _SECRET_HEADERS.search(k) and not _ENV_REF.fullmatch(last):
                raise ValueError(f"header {k!r} looks like a credential: write its value as "
                                 f"'${{ENV_NAME}}' (optionally after a scheme, e.g. 'Bearer ${{MY_TOKEN}}')")
        return v

    # ---- resolved at call time, in the harness process only ------------------------
    def api_key(self) -> str:
        """The key from the environment, read now. Local servers need none."""
        if not self.api_key_env:
            return "not-needed"
        value = os.environ.get(self.api_key_env)
        if not value:
            raise LLMConfigError(f"agent {self.name!r}: environment variable {self.api_key_env} "
                                   f"(api_key_env) is not set")
        return value

    def missing_env(self) -> list[str]:
        """Names of the environment variables this entry needs (key, header references)
        that are not set now."""
        names = [self.api_key_env] if self.api_key_env else []
        for v in (self.headers or {}).values():
            names += _ENV_REF.findall(v)
        return [n for n in dict.fromkeys(names) if not os.environ.get(n)]

    def check_ready(self, role: str = "agent") -> None:
        """Raise LLMConfigError naming every unset env var this entry needs. Call it before
        the first turn / paid call (docs/faults.md: a missing key is a user error, exit 2)."""
        missing = self.missing_env()
        if missing:
            src = f" (defined in {self.source})" if self.source else ""
            raise LLMConfigError(f"{role} {self.name!r}{src}: environment variable "
                                 f"{', '.join(missing)} is not set (named by "
                                 f"{'api_key_env' if self.api_key_env in missing else 'headers'}); "
                                 f"export it before running")

    def resolved_headers(self) -> dict[str, str]:
        def sub(m: re.Match) -> str:
            if m.group(1) not in os.environ:
                raise LLMConfigError(f"agent {self.name!r}: header needs environment variable {m.group(1)}")
            return os.environ[m.group(1)]
        return {k: _ENV_REF.sub(sub, v) for k, v in (self.headers or {}).items()}

    def secrets(self) -> list[str]:
        """Secret values currently in the environment for this config (for redaction)."""
        out = []
        if self.api_key_env and os.environ.get(self.api_key_env):
            out.append(os.environ[self.api_key_env])
        for v in (self.headers or {}).values():
            out += [os.environ[n] for n in _ENV_REF.findall(v) if os.environ.get(n)]
        return out


def _field_error(path: Path, index: int, name: Any, exc: ValidationError) -> LLMConfigError:
    first = first_field_error(exc, root="(entry)")
    field, msg = first.field, first.msg
    who = f"agents[{index}]" + (f" (name {name!r})" if name else "")
    if first.type == "extra_forbidden" and str(first.loc[-1]).lower() in _LITERAL_KEY_FIELDS:
        msg = ("a literal key/secret is not allowed in agent configs; put the key in an "
               "environment variable and name it with 'api_key_env' (e.g. api_key_env: OPENAI_API_KEY)")
    return LLMConfigError(f"{path}: {who}: field '{field}': {msg}")


def _read_entries(path: Path) -> list[dict[str, Any]]:
    """The raw entries of one registry file, checked for shape (not yet validated)."""
    path = Path(path)
    if not path.is_file():
        raise LLMConfigError(f"{path}: agent config file does not exist")
    try:
        raw = yamlfile.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise LLMConfigError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("agents"), list):
        raise LLMConfigError(f"{path}: expected a list under the top-level key 'agents:'")
    extra = set(raw) - {"agents"}
    if extra:
        raise LLMConfigError(f"{path}: unknown top-level key(s) {sorted(extra)}; only 'agents' is allowed")
    seen: set[str] = set()
    for i, entry in enumerate(raw["agents"]):
        if not isinstance(entry, dict):
            raise LLMConfigError(f"{path}: agents[{i}]: expected a mapping")
        name = entry.get("name")
        if isinstance(name, str) and name in seen:
            raise LLMConfigError(f"{path}: agents[{i}]: field 'name': duplicate name {name!r}")
        seen.add(str(name))
    return list(raw["agents"])


def _validate(path: Path, index: int, entry: dict[str, Any]) -> AgentConfig:
    try:
        return AgentConfig.model_validate({**entry, "source": str(path)})
    except ValidationError as exc:
        raise _field_error(path, index, entry.get("name"), exc) from None


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`over` on top of `base`, mappings (limits, pricing, retry, extra_body, headers) key by key."""
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def load_agent_file(path: Path) -> dict[str, AgentConfig]:
    """The complete entries of one file, by name."""
    return {cfg.name: cfg for cfg in (_validate(Path(path), i, e) for i, e in enumerate(_read_entries(path)))}


def config_files(extra_files: list[Path] | None = None) -> list[Path]:
    files = [BUILTIN_FILE]
    files += [Path(p) for p in os.environ.get(ENV_FILES, "").split(os.pathsep) if p]
    files += [Path(p) for p in (extra_files or [])]
    return files


def load_agent_configs(extra_files: list[Path] | None = None) -> dict[str, AgentConfig]:
    """All LLM agent configs by name: built-ins, then $AUTOMEDBENCH_AGENTS, then extra_files.
    An entry whose name an earlier file defined is merged over it (docs/llm.md): it needs only
    the fields it changes."""
    raw: dict[str, dict[str, Any]] = {}
    configs: dict[str, AgentConfig] = {}
    for f in config_files(extra_files):
        for i, entry in enumerate(_read_entries(f)):
            name = entry.get("name")
            merged = _merge(raw[name], entry) if isinstance(name, str) and name in raw else entry
            cfg = _validate(Path(f), i, merged)
            raw[cfg.name], configs[cfg.name] = merged, cfg
    return configs


def get_agent_config(name: str, extra_files: list[Path] | None = None) -> AgentConfig:
    configs = load_agent_configs(extra_files)
    if name not in configs:
        raise LLMConfigError(f"unknown agent/judge {name!r}; known: {', '.join(sorted(configs))}")
    return configs[name]


