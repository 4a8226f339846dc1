# sfu-probe --range foo:bar used to end in a bare "error: stoull".
ARGS = ["sfu-probe", "rcp.approx.ftz.f32", "--range", "foo:bar"]
RC = 2
MESSAGE = r"--range: 'foo' is not an input bit pattern"
