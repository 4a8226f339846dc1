# A hex value with 17 digits.
from common import *
FILES = scalar_files("u64", "0x1" + "0" * 16)
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'malformed hex value'
