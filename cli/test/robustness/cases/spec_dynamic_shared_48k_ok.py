# dynamic_shared_bytes of exactly 48 KiB is allowed.
from common import *
FILES = files(spec_text=spec(dynamic_shared_bytes=49152))
ARGS = ["run", "{dir}"]
RC = 0
MESSAGE = '\\[3\\] 3'
