# A zero grid dimension.
from common import *
FILES = files(spec_text=spec(grid=[0]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = '"grid"\\[0\\] must be a positive integer'
