# A hex float with too few digits.
from common import *
FILES = files(ptx_text=ptx(body='  mov.b32 %r1, 0f3F80;\n' + BODY))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'hex float literal needs 8 hex digits'
