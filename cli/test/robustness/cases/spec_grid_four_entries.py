# Four grid dimensions.
from common import *
FILES = files(spec_text=spec(grid=[1, 1, 1, 1]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = '"grid" must be an array of 1 to 3 positive integers'
