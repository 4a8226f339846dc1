# A run of 100000 '!' before a predicate (ptxas: syntax error).
from common import *
FILES = files(ptx_text=ptx(decls="  .reg .pred %p<3>;\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n", body="  setp.eq.and.u32 %p1, %r1, 0, " + "!" * 100000 + "%p2;\n  ret;\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"k\.ptx:\d+:\d+: a predicate is negated with one '!'"
