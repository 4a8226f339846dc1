# No .version directive.
from common import *
FILES = files(ptx_text=ptx(head=".target sm_75\n.address_size 64\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'missing \\.version directive'
