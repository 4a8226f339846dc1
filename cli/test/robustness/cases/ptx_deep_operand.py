# An operand nested 100000 braces deep.
from common import *
FILES = files(ptx_text=ptx(body="  mov.b32 %r1, " + nested(100000, "{", "}", "%r2") + ";\n  ret;\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"k\.ptx:\d+:\d+: operand list nested deeper than 64 levels"
