# A store past the end of its buffer is a located memory fault.
from common import *
FILES = files(ptx_text=ptx(body=BODY.replace("st.global.u32 [%rd2]", "st.global.u32 [%rd2+4096]")))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'memory fault: block \\(0,0,0\\) thread \\(0,0,0\\).*out-of-bounds'
