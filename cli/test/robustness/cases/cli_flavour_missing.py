# A flavour the spec does not have.
from common import *
FILES = files()
ARGS = ["run", "{dir}", "--flavour", "clang"]
RC = 2
MESSAGE = "kernel 'k' has no 'clang' PTX \\(has: nvcc\\)"
