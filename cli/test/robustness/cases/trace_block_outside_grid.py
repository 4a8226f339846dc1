# An event of block 7 in a grid of one block.
from common import *
FILES = {"a.trace": trace_text(events=[trace_event(b=7)]), "b.trace": trace_text()}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = 'a\\.trace:2: block 7 is outside the grid'
