# A trace cut off before its end line.
from common import *
FILES = {"a.trace": trace_text(end=False), "b.trace": trace_text()}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = 'a\\.trace: no end line'
