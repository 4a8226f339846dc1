# A key repeated inside a buffer description (two counts).
from common import files, spec
FILES = files(spec_text=spec().replace('"count": 4', '"count": 4, "count": 8', 1))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"duplicate key \"count\""
