# A float block size.
from common import *
FILES = files(spec_text=spec(block=[4.5]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = '"block"\\[0\\] must be a positive integer'
