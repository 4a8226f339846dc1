# A launch spec nested 100000 levels deep inside "budget": a depth error, not a stack overflow.
from common import files, spec, nested
FILES = files(spec_text=spec()[:-1] + ', "budget": ' + nested(100000) + "}")
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"launch\.json: JSON nested deeper than 64 levels"
