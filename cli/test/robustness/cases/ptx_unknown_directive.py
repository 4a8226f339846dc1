# An unknown module directive.
from common import *
FILES = files(ptx_text=ptx(module=".frobnicate 1;\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'unknown or unsupported module-level directive'
