# Events after the end line.
from common import *
FILES = {"a.trace": trace_text() + json.dumps(trace_event()) + "\n", "b.trace": trace_text()}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = 'data after the end line'
