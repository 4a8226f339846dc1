# A result "file" that is /dev/zero.
from common import result_text
FILES = {"b.json": result_text()}
ARGS = ["diff", "/dev/zero", "{dir}/b.json"]
RC = 2
MESSAGE = r"/dev/zero: cannot read result: not a regular file"
