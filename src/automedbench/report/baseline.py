"""Words the site uses to name apart what "reference" means elsewhere (docs/site.md "Ground truth,
baseline and the published reference"): the ground truth a run is scored against is called
"ground truth" on every page; the built-in baseline agent keeps its name `reference` and is shown
as the baseline wherever agents are listed or compared; the scoring profile `reference` keeps its
name in data and URLs and is labelled "published reference's scoring" on its toggle."""
from __future__ import annotations

# the built-in scripted baseline (docs/agents.md): its run folders and configs keep the name
BASELINE_AGENTS = frozenset({"reference"})
BASELINE_TITLE = ("the built-in baseline agent (a scripted, careful workflow), not the ground truth: "
                  "every score, its own included, is measured against the ground truth")

# the scoring profiles' labels on the site's toggle (docs/scoring-profiles.md); a profile
# without one is shown by its name
PROFILE_LABELS = {"ours": "ours", "reference": "published reference's scoring"}


def is_baseline(agent: str) -> bool:
    return agent in BASELINE_AGENTS


def agent_label(agent: str) -> str:
    """An agent's name as plain text where no badge fits (a select's option): `reference (baseline)`."""
    return f"{agent} (baseline)" if is_baseline(agent) else agent


def profile_label(profile: str) -> str:
    return PROFILE_LABELS.get(profile, profile)
