# sfu-probe --slice past a buffer's 1 GiB used to fail inside its own temporary launch spec.
ARGS = ["sfu-probe", "rcp.approx.ftz.f32", "--range", "0:16", "--slice", "268435457"]
RC = 2
MESSAGE = r"--slice: 268435457 is more than 268435456 inputs per launch"
