"""Where things are inside the sandbox, as the agent sees them: one fact shared by the sandbox
(which mounts them), the prompts and the judge (which read paths in the trace's effects).
A bottom-layer module so that scoring and the sandbox read it without knowing each other
(docs/architecture.md, "Layers")."""

DATA_INSIDE = "/data/public"       # the task's public data, read-only
PRIVATE_INSIDE = "/data/private"   # a DECOY tree watched from outside, never the real one
WORKSPACE_INSIDE = "/workspace"    # the run's workspace: cwd and HOME, read-write
