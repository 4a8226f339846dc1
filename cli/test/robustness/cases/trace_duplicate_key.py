# An event that gives its block twice.
from common import *
FILES = {"a.trace": trace_text().replace('{"b": 0,', '{"b": 0, "b": 0,'), "b.trace": trace_text()}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = 'a\\.trace:2: duplicate key "b"'
