# The base every case breaks: the minimal kernel and spec run and print their outputs.
from common import files
FILES = files()
ARGS = ["run", "{dir}"]
RC = 0
MESSAGE = r"\[3\] 3 \(0x00000003\)"
