# A lane mask '0x 1'.
from common import *
FILES = {"a.trace": trace_text(events=[trace_event(m="0x 1")]), "b.trace": trace_text()}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = '"0x 1" is not 0x hex'
