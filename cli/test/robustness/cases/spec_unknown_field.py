# A misspelt top-level field.
from common import *
FILES = files(spec_text=spec(gird=[1]))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'launch\\.json: unknown field "gird"'
