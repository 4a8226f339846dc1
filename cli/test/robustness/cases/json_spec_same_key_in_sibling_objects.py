# Keys of the top level repeated inside a nested object are not duplicates: the spec runs.
from common import files, spec
FILES = files(spec_text=spec(budget={"name": "x", "grid": [1], "params": {"name": 1}}))
ARGS = ["run", "{dir}"]
RC = 0
MESSAGE = r"out \(\.u32 x 4\)"
