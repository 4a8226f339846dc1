# and.b32 with a 64-bit source register.
from common import *
FILES = files(ptx_text=ptx(body="  and.b32 %r1, %r2, %rd3;\n" + BODY))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"'%rd3' is a 64-bit register; 'and\.b32 %r1, %r2, %rd3;' needs 32-bit operands"
