# Grid dimensions whose product passes 2^64.
from common import *
FILES = {"a.trace": trace_text(header=trace_header(grid=[4294967295, 4294967295, 4294967295])), "b.trace": trace_text()}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = 'is more than 2\\^32 threads'
