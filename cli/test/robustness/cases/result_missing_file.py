# A result file that does not exist.
from common import *
FILES = {"b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json"]
RC = 2
MESSAGE = 'a\\.json: no such result file'
