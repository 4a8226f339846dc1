# An undeclared register.
from common import *
FILES = files(ptx_text=ptx(body='  add.s32 %r1, %r9x, 1;\n' + BODY))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = "undeclared register '%r9x'"
