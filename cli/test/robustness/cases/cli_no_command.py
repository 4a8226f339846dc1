# No subcommand at all.
from common import *
FILES = {}
ARGS = []
RC = 2
MESSAGE = 'A subcommand is required'
