# A barrier reached by part of a warp is a deadlock.
from common import *
FILES = files(ptx_text=ptx(decls="  .reg .pred %p;\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n", body="  mov.u32 %r2, %tid.x;\n  setp.eq.u32 %p, %r2, 0;\n  @%p bra L1;\n  bar.sync 0;\nL1:\n" + BODY))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'deadlock'
