# An output that is a scalar.
from common import *
FILES = scalar_files("u32", 1) | {"launch.json": scalar_files("u32", 1)["launch.json"].replace('"outputs": ["out"]', '"outputs": ["x"]')}
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = 'output "x" is a scalar, not a buffer'
