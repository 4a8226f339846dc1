# An unterminated /* comment is reported where it opens (the column used to print as 4294967247).
from common import *
FILES = files(ptx_text=ptx() + "  /* open\nstill open\nand more\n")
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"k\.ptx:17:3: unterminated /\* comment"
