# The extremes of a type load: s64 -2^63 runs.
from common import *
FILES = scalar_files("s64", -9223372036854775808)
ARGS = ["run", "{dir}"]
RC = 0
MESSAGE = '\\[3\\] 3 \\(0x00000003\\)'
