# A grid dimension of 2^31.
from common import *
FILES = files(spec_text=spec(grid=[2147483648]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = '"grid"\\[0\\] must be a positive integer'
