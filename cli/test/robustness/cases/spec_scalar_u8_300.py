# A u8 value of 300 used to be stored as 44.
from common import *
FILES = scalar_files("u8", 300)
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'param "x": 300 is out of range for \\.u8'
