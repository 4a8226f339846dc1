# A 65536 x 65536 grid: 32-bit thread ids wrap (and the block name divided by a product that wrapped to 0).
from common import *
FILES = {"a.trace": trace_text(header=trace_header(grid=[65536, 65536, 1])), "b.trace": trace_text(header=trace_header(grid=[65536, 65536, 1]), events=[trace_event("0x00000002")])}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = 'a\\.trace:1: grid \\(65536,65536,1\\) x block \\(4,1,1\\) is more than 2\\^32 threads'
