# A register count past 2^32 (ptxas: Constant overflow) used to wrap modulo 2^32.
from common import *
FILES = files(ptx_text=ptx(decls="  .reg .b32 %y<4294967297>;\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"constant overflow: a register count must fit 32 bits \(at '4294967297'\)"
