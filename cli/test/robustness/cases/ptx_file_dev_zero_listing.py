# .file naming /dev/zero with --listing: the listing comes without source text, at once.
from common import *
FILES = files(ptx_text=ptx(head=HEAD + '.file 1 "/dev/zero"\n', body="  .loc 1 5 0\n" + BODY))
ARGS = ["run", "{dir}", "--listing"]
RC = 0
MESSAGE = r"ld\.param\.u64 %rd1, \[k_param_0\];\s+// zero:5"
