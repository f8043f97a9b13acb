"""The toy track's step scripts, run with JSON arguments (automedbench.tracks.scripted_code.launch)."""
