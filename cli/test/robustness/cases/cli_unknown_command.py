# An unknown subcommand is named (it used to say 'A subcommand is required').
from common import *
FILES = {}
ARGS = ["frobnicate"]
RC = 2
MESSAGE = "qgpu: unknown command 'frobnicate' \\(commands: run, check"
