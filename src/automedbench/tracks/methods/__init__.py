"""Scripts any track's scripted agents may copy into the sandbox (tracks/scripted_code.py)."""
