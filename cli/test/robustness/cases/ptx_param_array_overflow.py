# .param .b8 p[4294967304] (ptxas: Constant overflow) used to truncate to 8 bytes.
from common import *
FILES = files(ptx_text=ptx(params=".param .u64 k_param_0, .param .b8 p[4294967304]"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"'p' needs 4294967304 bytes of kernel parameter space, more than the limit of 4352 bytes"
