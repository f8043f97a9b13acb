"""Scripts the toy track's scripted agents copy into the sandbox."""
