# The largest u64 decimal is in range.
from common import *
FILES = scalar_files("u64", 18446744073709551615)
ARGS = ["run", "{dir}"]
RC = 0
MESSAGE = '\\[3\\] 3 \\(0x00000003\\)'
