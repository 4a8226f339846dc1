# A .local array of 2^32 bytes used to become 0 bytes, then a misleading fault.
from common import *
FILES = files(ptx_text=ptx(decls="  .local .b8 s[4294967296];\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"'s' needs 4294967296 bytes of local memory per thread, more than the limit of 524288 bytes"
