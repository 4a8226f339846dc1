# '0x-1' used to wrap to all ones.
from common import *
FILES = scalar_files("u32", "0x-1")
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'malformed hex value "0x-1"'
