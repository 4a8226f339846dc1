# layer_types nested 100000 levels deep: a depth error, not a stack overflow.
from common import *
FILES = {"config.json": model_files()["config.json"].replace('"layer_types": [', '"layer_types": [' + nested(100000) + ", ", 1)}
PREPARE = model_prepare
ARGS = ["model", "info", "{dir}"]
RC = 2
MESSAGE = 'config\\.json: JSON nested deeper than 64 levels'
