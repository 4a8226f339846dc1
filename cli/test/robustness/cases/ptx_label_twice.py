# A label defined twice.
from common import *
FILES = files(ptx_text=ptx(body='L1:\nL1:\n' + BODY))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = "label 'L1' defined twice"
