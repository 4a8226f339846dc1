# A negative value for an unsigned type.
from common import *
FILES = scalar_files("u32", -1)
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'param "x": -1 is out of range for \\.u32'
