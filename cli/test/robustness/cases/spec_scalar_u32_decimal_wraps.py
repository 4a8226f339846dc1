# A decimal u32 scalar 4294967301 used to reach the kernel as 5.
from common import *
FILES = scalar_files("u32", 4294967301)
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'param "x": 4294967301 is out of range for \\.u32'
