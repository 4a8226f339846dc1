# A .shared array of 2^32 bytes: the 48 KiB limit, not a truncated size.
from common import *
FILES = files(ptx_text=ptx(decls="  .shared .b8 s[4294967296];\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"'s' needs 4294967296 bytes of shared memory, more than the limit of 49152 bytes"
