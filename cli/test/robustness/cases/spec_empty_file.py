# An empty spec file.
from common import *
FILES = files(spec_text="")
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'launch\\.json: malformed JSON'
