# A spec cut off in the middle.
from common import *
FILES = files(spec_text=spec()[:40])
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'launch\\.json: malformed JSON: .*parse error'
