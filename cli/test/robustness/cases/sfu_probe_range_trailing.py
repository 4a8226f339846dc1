# sfu-probe --range 16abc:20 used to probe from 16 (std::stoull stops at the first non-digit).
ARGS = ["sfu-probe", "rcp.approx.ftz.f32", "--range", "16abc:20"]
RC = 2
MESSAGE = r"--range: '16abc' is not an input bit pattern"
