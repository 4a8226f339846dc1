# A result with two "outputs" keys.
from common import result_text
FILES = {"a.json": result_text()[:-1] + ', "outputs": []}', "b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json"]
RC = 2
MESSAGE = r"a\.json: duplicate key \"outputs\""
