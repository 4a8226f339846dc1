# An integer literal past 2^64.
from common import *
FILES = files(ptx_text=ptx(body='  add.s32 %r1, %r1, 0x1ffffffffffffffff;\n' + BODY))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'malformed integer literal'
