# Deep nesting inside init.values (30000 levels of objects).
from common import files, spec, nested
FILES = files(spec_text=spec().replace('"count": 4', '"count": 4, "init": {"values": ' + nested(30000, '{"a":', '}', '1') + '}'))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"launch\.json: JSON nested deeper than 64 levels"
