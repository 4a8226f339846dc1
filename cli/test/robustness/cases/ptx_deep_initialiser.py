# A .global initialiser nested 100000 braces deep: a nesting error, not a stack overflow.
from common import *
FILES = files(ptx_text=ptx(module=".global .b32 g[1] = " + nested(100000, "{", "}", "1") + ";\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"k\.ptx:4:\d+: initialiser nested deeper than 64 levels"
