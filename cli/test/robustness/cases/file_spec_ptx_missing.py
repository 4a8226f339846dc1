# The spec's PTX does not exist.
from common import files, spec
FILES = files(spec_text=spec(ptx={"nvcc": "nope.ptx"}))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"nope\.ptx: cannot read PTX file: no such file"
