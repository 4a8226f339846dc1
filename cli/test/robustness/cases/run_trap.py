# trap stops the launch with its location.
from common import *
FILES = files(ptx_text=ptx(body='  trap;\n' + BODY))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'trap: .*trap executed'
