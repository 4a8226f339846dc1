# An output that names no parameter.
from common import *
FILES = files(spec_text=spec(outputs=["nope"]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'output "nope" is not a parameter'
