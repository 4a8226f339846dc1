# warp_width -4.
from common import *
FILES = {"a.json": result_text(warp_width=-4), "b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json"]
RC = 2
MESSAGE = '"warp_width" must be an integer 0\\.\\.32 .*got -4'
