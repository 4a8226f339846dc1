# A result of another format.
from common import *
FILES = {"a.json": result_text(format="qgpu-result-2"), "b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json"]
RC = 2
MESSAGE = 'a\\.json: missing or unknown "format"'
