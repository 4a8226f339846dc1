# stats that is not an object.
from common import *
FILES = {"a.json": result_text(stats=[1]), "b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json"]
RC = 2
MESSAGE = 'a\\.json: "stats" must be an object'
