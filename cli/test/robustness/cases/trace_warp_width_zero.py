# A trace of warp width 0.
from common import *
FILES = {"a.trace": trace_text(header=trace_header(warp_width=0)), "b.trace": trace_text()}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = 'warp_width must be 1\\.\\.32'
