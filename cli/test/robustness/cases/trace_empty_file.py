# An empty trace.
from common import *
FILES = {"a.trace": "", "b.trace": trace_text()}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = 'a\\.trace: empty file, not a qgpu trace'
