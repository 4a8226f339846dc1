# --backend circuit honours --max-steps on an endless loop (the reference executor beside it stops first).
from common import *
FILES = files(ptx_text=ptx(body=LOOP_BODY))
ARGS = ["run", "{dir}", "--backend", "circuit", "--max-steps", "1000"]
RC = 2
MESSAGE = "step limit of 1000 exceeded"
