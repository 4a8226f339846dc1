# config.json that is a link to /dev/zero: refused at once (was read without end).
import os
from common import *
FILES = {}
ARGS = ["model", "info", "{dir}"]
RC = 2
MESSAGE = r"config\.json: cannot open \(not a regular file\)"


def PREPARE(dir):
    model_prepare(dir)
    os.symlink("/dev/zero", os.path.join(dir, "config.json"))
