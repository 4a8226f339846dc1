# --warp 8 is not a width qgpu models.
from common import *
FILES = files()
ARGS = ["run", "{dir}", "--warp", "8"]
RC = 2
MESSAGE = '--warp'
