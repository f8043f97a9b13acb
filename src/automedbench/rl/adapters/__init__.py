"""Framework adapters for the RL environment (docs/rl.md "Frameworks").

    automedbench.rl.adapters.verifiers_env   # a verifiers environment (vf.load_environment)
    automedbench.rl.adapters.nemo_gym        # a NeMo Gym resources server

Each module imports its framework when it is imported (the optional extra `[rl]`); nothing in
the core imports them, so the harness never needs either framework.
"""
