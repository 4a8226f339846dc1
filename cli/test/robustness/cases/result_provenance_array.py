# A golden whose provenance is an array used to give a raw json type_error.306.
from common import *
FILES = {"a.json": result_text(provenance=[1, 2]), "b.json": result_text()}
ARGS = ["diff", "{dir}/a.json", "{dir}/b.json"]
RC = 2
MESSAGE = 'a\\.json: "provenance" must be an object, got array'
