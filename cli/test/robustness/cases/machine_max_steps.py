# --backend machine honours --max-steps on an endless loop.
from common import *
FILES = files(ptx_text=ptx(body=LOOP_BODY))
ARGS = ["run", "{dir}", "--backend", "machine", "--max-steps", "1000"]
RC = 2
MESSAGE = 'machine: step limit of 1000 exceeded'
