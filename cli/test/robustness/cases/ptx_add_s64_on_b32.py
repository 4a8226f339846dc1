# add.s64 on .b32 registers (ptxas: Arguments mismatch) used to run.
from common import *
FILES = files(ptx_text=ptx(body="  add.s64 %r1, %r2, %r3;\n" + BODY))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"'%r1' is a 32-bit register; 'add\.s64 %r1, %r2, %r3;' needs 64-bit operands"
