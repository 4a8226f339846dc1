# A grid dimension 1.5.
from common import *
FILES = {"a.trace": trace_text(header=trace_header(grid=[1.5, 1, 1])), "b.trace": trace_text()}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = 'grid must be an unsigned 32-bit integer, got 1\\.5'
