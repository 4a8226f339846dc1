# The smallest s32 is in range.
from common import *
FILES = scalar_files("s32", -2147483648)
ARGS = ["run", "{dir}"]
RC = 0
MESSAGE = '\\[3\\] 3 \\(0x00000003\\)'
