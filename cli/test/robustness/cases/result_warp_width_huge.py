# A result with warp_width 1e30 (an undefined float-to-integer cast).
from common import *
FILES = {"a.json": result_text(warp_width=1e30), "b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json"]
RC = 2
MESSAGE = 'a\\.json: "warp_width" must be an integer 0\\.\\.32'
