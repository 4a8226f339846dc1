# Nesting within the limit (60 levels in budget) loads.
from common import *
FILES = files(spec_text=spec()[:-1] + ', "budget": ' + nested(60) + "}")
ARGS = ["run", "{dir}"]
RC = 0
MESSAGE = '\\[3\\] 3'
