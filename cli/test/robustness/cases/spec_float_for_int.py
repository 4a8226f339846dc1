# A float value for an integer scalar.
from common import *
FILES = scalar_files("u32", 1.5)
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'param "x": 1\\.5 is not an integer'
