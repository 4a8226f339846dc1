# A float block index (0.5) used to be truncated to 0.
from common import *
FILES = {"a.trace": trace_text(events=[trace_event(b=0.5)]), "b.trace": trace_text()}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = 'a\\.trace:2: malformed trace: block index "b" must be an unsigned 32-bit integer, got 0\\.5'
