# The spec's PTX is /dev/zero: refused at once.
from common import files, spec
FILES = files(spec_text=spec(ptx={"nvcc": "/dev/zero"}))
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"/dev/zero: cannot read PTX file: not a regular file"
