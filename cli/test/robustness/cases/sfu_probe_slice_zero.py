# sfu-probe --slice 0 used to fail inside its own temporary launch spec ("grid"[0] must be positive).
ARGS = ["sfu-probe", "rcp.approx.ftz.f32", "--range", "0:16", "--slice", "0"]
RC = 2
MESSAGE = r"--slice: 0 is less than 1"
