# num_attention_heads 2^30 gave a negative shape in the message.
from common import *
FILES = model_files(num_attention_heads=1073741824)
PREPARE = model_prepare
ARGS = ["model", "info", "{dir}"]
RC = 2
MESSAGE = "field 'num_attention_heads' makes the q_proj width 2 x num_attention_heads x head_dim 68719476736"
