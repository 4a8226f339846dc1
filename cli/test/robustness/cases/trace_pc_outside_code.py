# An event at a pc past the code table.
from common import *
FILES = {"a.trace": trace_text(events=[trace_event(pc=5)]), "b.trace": trace_text()}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = 'a\\.trace:2: pc 5 is not in the code table'
