# An output buffer of 2^63 elements used to say 'none differ' although a write differs.
from common import *
FILES = {"a.trace": trace_text(header=trace_header(buffers=[{"index": 0, "name": "out", "type": "u32", "count": 9223372036854775808, "address": "0x740000000000", "output": True}])), "b.trace": trace_text(events=[trace_event("0x00000002")])}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = "buffer 'out': count 9223372036854775808 is not a buffer size"
