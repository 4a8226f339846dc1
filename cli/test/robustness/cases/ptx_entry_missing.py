# The spec's entry is not in the PTX.
from common import *
FILES = files(spec_text=spec(entry="nope"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'nope'
