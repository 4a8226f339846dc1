# qgpu compile plan of a unit the catalogue does not have.
from common import *
FILES = {}
ARGS = ["compile", "plan", "no_such_unit"]
RC = 2
MESSAGE = "no compiled unit 'no_such_unit'"
