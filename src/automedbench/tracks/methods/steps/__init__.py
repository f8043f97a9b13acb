"""Step scripts any track's scripted agents may run (tracks/scripted_code.py `launch`)."""
