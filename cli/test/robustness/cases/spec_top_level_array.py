# A spec that is a JSON array.
from common import *
FILES = files(spec_text="[1, 2]")
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'launch\\.json: top level must be an object'
