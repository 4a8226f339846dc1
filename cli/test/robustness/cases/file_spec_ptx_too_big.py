# A PTX file over the 64 MiB limit (sparse: no disk space used) is refused before reading.
import os
from common import files
FILES = files()
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"k\.ptx: cannot read PTX file: 67108865 bytes, more than the limit of 67108864 bytes"


def PREPARE(dir):
    with open(os.path.join(dir, "k.ptx"), "r+b") as f:
        f.truncate((64 << 20) + 1)
