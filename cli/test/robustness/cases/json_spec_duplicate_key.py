# "grid" given twice: JSON leaves the value undefined; the spec must not keep the last silently.
from common import files, spec
FILES = files(spec_text=spec().replace('"grid": [', '"grid": [2], "grid": [', 1))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"launch\.json: duplicate key \"grid\""
