# A lane mask wider than the warp.
from common import *
FILES = {"a.trace": trace_text(events=[trace_event(m="0x10")]), "b.trace": trace_text()}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = 'lane mask 0x10 does not fit warp width 4'
