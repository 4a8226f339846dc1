# A trace line nested 100000 levels deep.
from common import *
FILES = {"a.trace": trace_text().replace('"inject": null', '"inject": ' + nested(100000)), "b.trace": trace_text()}
ARGS = ["diff", "--trace", "{dir}/a.trace", "{dir}/b.trace"]
RC = 2
MESSAGE = 'a\\.trace:1: JSON nested deeper than 64 levels'
