# run without a spec.
from common import *
FILES = {}
ARGS = ["run"]
RC = 2
MESSAGE = 'spec is required'
