"""Shared by the tools that write measured tables into the docs (machine_tables.py,
isa_tables.py, compiler_tables.py): a generated block lives between
`<!-- KIND:NAME -->` and `<!-- /KIND:NAME -->` and is replaced whole."""
import re
import sys


def replace_marked(text, kind, name, body, doc):
    """`text` with the block KIND:NAME replaced by `body`; exits naming `doc` if the markers are missing."""
    pattern = re.compile(rf"(<!-- {kind}:{name} -->\n).*?(\n<!-- /{kind}:{name} -->)", re.S)
    if not pattern.search(text):
        sys.exit(f"{doc}: no <!-- {kind}:{name} --> markers")
    return pattern.sub(lambda m: m.group(1) + body + m.group(2), text)
