# An unknown backend.
from common import *
FILES = files()
ARGS = ["run", "{dir}", "--backend", "nope"]
RC = 2
MESSAGE = 'nope'
