# dynamic_shared_bytes 4294967312 used to become 16.
from common import *
FILES = files(spec_text=spec(dynamic_shared_bytes=4294967312))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = '"dynamic_shared_bytes" 4294967312 is more than the 49152 bytes'
