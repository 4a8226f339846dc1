# A result file whose provenance nests 50000 levels: a depth error naming the file.
from common import result_text, nested
FILES = {"a.json": result_text(provenance=None).replace('"provenance": null', '"provenance": ' + nested(50000)),
         "b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json"]
RC = 2
MESSAGE = r"a\.json: JSON nested deeper than 64 levels"
