# linear_num_key_heads x linear_key_head_dim past int (used to wrap into wrong shapes).
from common import *
FILES = model_files(linear_num_key_heads=65536, linear_key_head_dim=65536, linear_num_value_heads=65536)
PREPARE = model_prepare
ARGS = ["model", "info", "{dir}"]
RC = 2
MESSAGE = "config\\.json: field 'linear_key_head_dim' makes linear_num_key_heads x linear_key_head_dim 4294967296, more than 2\\^31-1"
