#!/usr/bin/env python3
"""The layer check (ctest `layers`): the folders are layers, lowest first, in the order the top
CMakeLists.txt gives (QGPU_LAYERS). Fails when
  * a C++ file of one layer includes a header of a higher layer, or
  * a folder's CMakeLists.txt adds sources, links or options to a target another folder
    defines, or names a higher folder's files.
Usage: tools/check_layers.py --root DIR LAYER...   (exit 1 and a list of violations on failure)
"""
import argparse
import pathlib
import re
import sys

SOURCES = (".cpp", ".h", ".cu", ".def")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
DEFINES = re.compile(r'\badd_(?:library|executable)\(\s*([A-Za-z0-9_]+)')
TARGET_CMD = re.compile(r'\b(target_(?:sources|link_libraries|include_directories|compile_definitions|'
                        r'compile_options))\(\s*([A-Za-z0-9_]+)')
SOURCE_PATH = re.compile(r'\$\{CMAKE_SOURCE_DIR\}/([A-Za-z0-9_]+)')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("layers", nargs="+")
    args = ap.parse_args()
    root = pathlib.Path(args.root).resolve()
    rank = {name: i for i, name in enumerate(args.layers)}
    errors = []

    def layer_of(path):
        parts = path.relative_to(root).parts
        return parts[0] if parts and parts[0] in rank else None

    # Every header a quoted include can name: by its path under an include/ or src/ folder
    # (or the folder itself, for headers beside their sources), per layer.
    headers = {}
    for layer in args.layers:
        for h in (root / layer).rglob("*"):
            if h.suffix not in (".h", ".def") or not h.is_file():
                continue
            rel = h.relative_to(root / layer).parts
            for start in range(len(rel)):
                headers.setdefault("/".join(rel[start:]), set()).add(h)

    def resolve(name, including):
        local = including.parent / name
        if local.is_file():
            return [local.resolve()]
        return sorted(headers.get(name, ()))

    for layer in args.layers:
        for f in sorted((root / layer).rglob("*")):
            if f.suffix not in SOURCES or not f.is_file():
                continue
            text = f.read_text(errors="replace")
            for m in INCLUDE.finditer(text):
                found = resolve(m.group(1), f)
                layers = {layer_of(h) for h in found} - {None}
                if not layers:
                    continue  # a system or third-party header
                # Ambiguous names resolve to the lowest layer that has them (the include path
                # of a lower layer comes first); a violation needs every candidate higher.
                lowest = min(layers, key=rank.get)
                if rank[lowest] > rank[layer]:
                    line = text.count("\n", 0, m.start()) + 1
                    errors.append(f"{f.relative_to(root)}:{line}: {layer}/ includes \"{m.group(1)}\" "
                                  f"of {lowest}/, a higher layer")

    # CMake: each folder builds its own targets only.
    defined = {}
    for layer in args.layers:
        for cm in (root / layer).rglob("CMakeLists.txt"):
            for m in DEFINES.finditer(cm.read_text()):
                defined[m.group(1)] = layer
    for layer in args.layers:
        for cm in sorted((root / layer).rglob("CMakeLists.txt")):
            text = cm.read_text()
            for m in TARGET_CMD.finditer(text):
                owner = defined.get(m.group(2))
                if owner is not None and owner != layer:
                    line = text.count("\n", 0, m.start()) + 1
                    errors.append(f"{cm.relative_to(root)}:{line}: {m.group(1)}({m.group(2)}) changes a target "
                                  f"of {owner}/")
            for m in SOURCE_PATH.finditer(text):
                other = m.group(1)
                if other in rank and rank[other] > rank[layer]:
                    line = text.count("\n", 0, m.start()) + 1
                    errors.append(f"{cm.relative_to(root)}:{line}: names {other}/, a higher layer")

    if errors:
        print("\n".join(errors))
        print(f"layer check: {len(errors)} violation(s); order (lowest first): {' < '.join(args.layers)}")
        return 1
    print(f"layer check: ok ({' < '.join(args.layers)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
