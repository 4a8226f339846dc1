# A config.json that is an array.
from common import *
FILES = {"config.json": "[1]"}
PREPARE = model_prepare
ARGS = ["model", "info", "{dir}"]
RC = 2
MESSAGE = 'config is not a JSON object'
