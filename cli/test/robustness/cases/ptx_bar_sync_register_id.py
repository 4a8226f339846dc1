# A barrier id in a register that is out of range faults when the barrier runs.
from common import *
FILES = files(ptx_text=ptx(body="  mov.u32 %r2, 16;\n  bar.sync %r2;\n" + BODY))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"undefined behaviour: .*barrier number 16 is out of range 0\.\.15"
