# .address_size 32.
from common import *
FILES = files(ptx_text=ptx(head=".version 7.0\n.target sm_75\n.address_size 32\n"))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'only \\.address_size 64 is supported'
