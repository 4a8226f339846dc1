# The launch spec is /dev/zero: refused at once (not read forever).
ARGS = ["run", "/dev/zero"]
RC = 2
MESSAGE = r"/dev/zero: cannot read launch spec: not a regular file"
