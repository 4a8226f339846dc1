# A fresh-looking interpreter golden for a spec whose PTX is /dev/zero: checking it for
# staleness hashed /dev/zero without end; now the PTX is refused at once.
import hashlib
import os
from common import *
FILES = {"kernels/k/launch.json": spec(ptx={"nvcc": "/dev/zero"})}
ARGS = ["check", "k", "--kernels-dir", "{dir}/kernels", "--goldens-dir", "{dir}/goldens"]
RC = 2
MESSAGE = r"/dev/zero: cannot read the file to hash: not a regular file"


def PREPARE(dir):
    launch = open(os.path.join(dir, "kernels/k/launch.json"), "rb").read()
    os.makedirs(os.path.join(dir, "goldens/k"))
    golden = result_text(provenance={"kind": "interpreter", "launch_sha256": hashlib.sha256(launch).hexdigest(),
                                     "ptx_sha256": "0" * 64})
    open(os.path.join(dir, "goldens/k/interp.json"), "w").write(golden)
