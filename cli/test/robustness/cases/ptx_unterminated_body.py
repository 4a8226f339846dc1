# A function body without its closing brace.
from common import *
FILES = files(ptx_text=ptx()[:-2])
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'unterminated function body'
