# Two equal result files diff as identical (the base of the result cases).
from common import result_text
FILES = {"a.json": result_text(), "b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json"]
RC = 0
MESSAGE = r"(?i)identical"
