"""S5: count the lines of outputs/labels.csv.  python scripts/s5_verify.py --args-json '{}'"""
import pathlib

print(pathlib.Path("outputs/labels.csv").read_text().count("\n"))
