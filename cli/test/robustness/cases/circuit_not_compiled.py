# --backend circuit refuses, before any token, an instruction the compiled step does not run yet.
from common import *
FILES = files(ptx_text=ptx(body="  bar.sync 0;\n  ret;\n"))
ARGS = ["run", "{dir}", "--backend", "circuit"]
RC = 2
MESSAGE = r"BAR \(not compiled into the step yet\)"
