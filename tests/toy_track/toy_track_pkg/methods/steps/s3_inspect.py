"""S3: read the pilot's label back, then remove it.  python scripts/s3_inspect.py --args-json '{}'"""
import pathlib

print(pathlib.Path("outputs/pilot.txt").read_text(), len("x"))
pathlib.Path("outputs/pilot.txt").unlink()
