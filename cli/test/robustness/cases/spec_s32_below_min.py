# One below the smallest s32.
from common import *
FILES = scalar_files("s32", -2147483649)
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'param "x": -2147483649 is out of range for \\.s32'
