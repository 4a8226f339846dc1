# qgpu compile plan --layer past the unit's last layer.
from common import *
FILES = {}
ARGS = ["compile", "plan", "alu", "--layer", "999"]
RC = 2
MESSAGE = "is not in the plan"
