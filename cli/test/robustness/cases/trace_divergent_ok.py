# Traces whose one write differs diverge (exit 1) and name the thread.
from common import *
FILES = {"a.trace": trace_text(), "b.trace": trace_text(events=[trace_event("0x00000002")])}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 1
MESSAGE = 'block \\(0,0,0\\) thread \\(0,0,0\\)'
