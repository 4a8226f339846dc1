# An unterminated string.
from common import *
FILES = files(ptx_text=ptx(head=HEAD + '.file 1 "abc\n'))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'unterminated string'
