# A trace that is /dev/zero (used to be read without end).
from common import *
FILES = {"b.trace": trace_text()}
ARGS = ["diff", "--trace", "/dev/zero", "{dir}/b.trace"]
RC = 2
MESSAGE = '/dev/zero: cannot read the trace: not a regular file'
