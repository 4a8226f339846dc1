# mov.f32 r, 1e999 (ptxas: Constant overflow) used to load infinity.
from common import *
FILES = files(ptx_text=ptx(decls="  .reg .f32 %f;\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n", body="  mov.f32 %f, 1e999;\n" + BODY))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"constant overflow: the literal is outside the range of \.f64 \(at '1e999'\)"
