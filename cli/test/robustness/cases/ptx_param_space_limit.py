# Kernel parameters past 4352 bytes before PTX ISA 8.1 (ptxas: too much parameter space).
from common import *
FILES = files(ptx_text=ptx(params=".param .u64 k_param_0, .param .b8 p[4400]"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"'p' needs 4400 bytes of kernel parameter space, more than the limit of 4352 bytes"
