# A buffer count of 1.8e20, a JSON float: reading it as an unsigned integer was undefined
# behaviour (found by fuzz_trace under UBSan); it is refused as not an integer.
from common import *
FILES = {"a.trace": trace_text(header=trace_header(buffers=[{"index": 0, "name": "out", "type": "u32", "count": 1.8446744073709552e20, "address": "0x740000000000", "output": True}])), "b.trace": trace_text()}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = "buffer count must be an unsigned 64-bit integer, got 1\\.84467"
