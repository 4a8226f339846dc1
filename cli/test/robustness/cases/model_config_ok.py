# The base of the model cases: tiny-tied's config and weights pass model info.
from common import *
FILES = model_files()
PREPARE = model_prepare
ARGS = ["model", "info", "{dir}"]
RC = 0
MESSAGE = 'deltanet\\s+key heads 2'
