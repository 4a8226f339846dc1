# An endless loop under the default budget stops at the token-stream bound, not at 9.6 GB.
from common import *
FILES = files(ptx_text=ptx(body=LOOP_BODY))
ARGS = ["run", "{dir}", "--backend", "machine"]
RC = 2
MESSAGE = 'machine: the generated token stream passed 1048576 tokens'
SECONDS = 10  # about 3 s to generate a million tokens
