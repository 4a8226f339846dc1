# The step budget is per launch: the message says so and gives the launch size.
from common import *
FILES = files(spec_text=spec(grid=[3]), ptx_text=ptx(body=LOOP_BODY))
ARGS = ["run", "{dir}", "--max-steps", "1000"]
RC = 2
MESSAGE = 'step limit of 1000 warp instructions exceeded .*the budget is for the whole launch \\(3 blocks of 4 threads\\)'
