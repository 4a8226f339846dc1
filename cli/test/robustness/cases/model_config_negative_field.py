# A negative hidden_size.
from common import *
FILES = model_files(hidden_size=-64)
PREPARE = model_prepare
ARGS = ["model", "info", "{dir}"]
RC = 2
MESSAGE = "field 'hidden_size' must be a positive integer, got -64"
