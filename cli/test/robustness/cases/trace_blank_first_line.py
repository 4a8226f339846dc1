# A blank first line used to skip the header check: two header-less files diffed as identical.
from common import *
FILES = {"a.trace": "\n" + trace_text(events=[]).split("\n", 1)[1], "b.trace": "\n" + trace_text(events=[]).split("\n", 1)[1]}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = 'a\\.trace:1: not a qgpu trace \\(the first line must be the header, not blank\\)'
