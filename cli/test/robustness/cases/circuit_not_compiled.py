# --backend circuit refuses, before any token, an instruction the compiled step does not run yet.
from common import *
FILES = files(ptx_text=ptx(body=BODY.replace("st.global.u32 [%rd2], %r1;", "popc.b32 %r2, %r1;\n  st.global.u32 [%rd2], %r2;")))
ARGS = ["run", "{dir}", "--backend", "circuit"]
RC = 2
MESSAGE = r"pc \d+: \w+ \(not compiled into the step yet\)"
