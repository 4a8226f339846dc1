# A hex value with a blank after 0x used to be accepted (strtoull skips blanks).
from common import *
FILES = scalar_files("u32", "0x 12")
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'param "x": malformed hex value "0x 12"'
