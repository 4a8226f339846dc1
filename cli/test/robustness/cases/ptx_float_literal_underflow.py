# 1e-999 underflows to zero (ptxas: Constant overflow).
from common import *
FILES = files(ptx_text=ptx(decls="  .reg .f32 %f;\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n", body="  add.f32 %f, %f, 1e-999;\n" + BODY))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"constant overflow"
