# The spec's PTX names a folder.
from common import files, spec
FILES = files(spec_text=spec(ptx={"nvcc": "sub"}))
FILES["sub/x"] = ""
ARGS = ["run", "{dir}"]
RC = 2
MESSAGE = r"sub: cannot read PTX file: it is a folder"
