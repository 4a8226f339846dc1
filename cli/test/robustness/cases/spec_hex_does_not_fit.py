# A hex value wider than the type.
from common import *
FILES = scalar_files("u8", "0x100")
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = '"0x100" does not fit \\.u8'
