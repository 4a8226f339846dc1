# A config.json cut off.
from common import *
FILES = {"config.json": model_files()["config.json"][:50]}
PREPARE = model_prepare
ARGS = ["model", "info", "{dir}"]
RC = 2
MESSAGE = 'config\\.json: not valid JSON'
