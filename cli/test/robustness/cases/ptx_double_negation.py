# '!!%p' is not PTX (ptxas: syntax error); it used to negate once.
from common import *
FILES = files(ptx_text=ptx(decls="  .reg .pred %p<3>;\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n", body="  setp.eq.and.u32 %p1, %r1, 0, !!%p2;\n  ret;\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"a predicate is negated with one '!'"
