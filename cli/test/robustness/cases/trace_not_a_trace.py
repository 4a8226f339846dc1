# A result file given as a trace.
from common import *
FILES = {"a.trace": result_text(), "b.trace": trace_text()}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = 'a\\.trace:1: not a qgpu trace'
