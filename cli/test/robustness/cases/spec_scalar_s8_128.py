# 128 does not fit .s8 (-128..127).
from common import *
FILES = scalar_files("s8", 128)
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'param "x": 128 is out of range for \\.s8'
