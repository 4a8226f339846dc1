# Two equal traces diff as identical (the base of the trace cases).
from common import *
FILES = {"a.trace": trace_text(), "b.trace": trace_text()}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 0
MESSAGE = '(?i)identical'
