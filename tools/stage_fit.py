"""Does one machine step's units stage fit hidden 2048? A placement of measured units.

docs/machine.md §5.2 plans layers 9–37 of the step for the memory pipeline (from 9) and the
functional units (from 13, after operand select at 12), all read by the result select at 38.
This module places compiled units into that window by their measured channels after each
layer (`channels_per_layer` of `qgpu compile units --json`: the unit's own wires and those of
its input bits still to be read) and reports the widest layer. A unit at start s with depth d
holds channels_per_layer[t - s] for s <= t < s + d, then its result until the window ends
(it waits for the result select), packed into 16-bit chunks: a merged sum of the unit's last
level, one channel per 16 bits, which costs no neurons. Two encodings of the operands every
unit reads (per lane a, b, c):

* single rail (as the register-file reads deliver them: one channel per bit): 4 lanes x 3 x
  64 = 768 channels beside the units, which read them in place;
* packed: 16-bit chunks in integer channels, 4 x 3 x 4 = 48 channels; each unit first
  unpacks its input bits, at the measured cost of the compiled unit `unpack64` (16 chunks
  into 256 bits, four layers) scaled to the unit's input bits.

The placement is greedy (largest area first, each at the start that keeps the running peak
lowest, ties to the earliest start): its peak is an upper bound of the best placement's. The
lower bound is the larger of the widest layer and the area over the window's 29 layers, with
a unit's input bits left out of its counts in single rail (they are the shared operands).
"""
import math

WINDOW_FIRST = 9    # the memory pipeline's first layer (§5.2 plan)
UNITS_FIRST = 13    # after operand select at 12
WINDOW_LAST = 37    # the result select reads at 38
WINDOW = WINDOW_LAST - WINDOW_FIRST + 1
SINGLE_RAIL_OPERANDS = 4 * 3 * 64
PACKED_OPERANDS = 4 * 3 * 4
HIDDEN = 2048
MEMORY_UNITS = {"lsu32", "lsu32x1"}  # may start with the window; the others after operand select


def waiting(unit):
    return -(-unit["outputs"] // 16)


def occupancy(unit, start):
    prof = unit["channels_per_layer"]
    return [0 if t < start else prof[t - start] if t - start < len(prof) else waiting(unit) for t in range(WINDOW)]


def place(units):
    """Greedy placement of `units` into the window: ({name: first layer}, per-layer channels, refused names)."""
    load = [0] * WINDOW
    placements, refused = {}, []
    for u in sorted(units, key=lambda u: (-sum(u["channels_per_layer"]), u["unit"])):
        first = 0 if u["unit"] in MEMORY_UNITS else UNITS_FIRST - WINDOW_FIRST
        best = None
        for s in range(first, WINDOW - u["layers"] + 1):
            trial = [a + b for a, b in zip(load, occupancy(u, s))]
            if best is None or (max(trial), s) < best[0]:
                best = ((max(trial), s), s, trial)
        if best is None:
            refused.append(u["unit"])
            continue
        placements[u["unit"]] = WINDOW_FIRST + best[1]
        load = best[2]
    return placements, load, refused


def lower_bound(units, without_inputs):
    own = [[max(c - (u["inputs"] if without_inputs else 0), 0) for c in u["channels_per_layer"]] for u in units]
    widest = max(max(p) for p in own)
    area = sum(sum(p) for p in own)
    return max(widest, -(-area // WINDOW))


def packed(unit, unpack):
    """`unit` as the packed encoding runs it: `unpack` (the measured unpack64 row) scaled to
    the unit's input bits, then the unit."""
    u = dict(unit)
    scale = unit["inputs"] / (16 * unpack["inputs"])
    u["layers"] = unit["layers"] + unpack["layers"]
    u["channels_per_layer"] = [math.ceil(c * scale) for c in unpack["channels_per_layer"]] + list(unit["channels_per_layer"])
    return u


def fit(units, operands, without_inputs):
    placements, load, refused = place(units)
    return max(load) + operands, lower_bound(units, without_inputs) + operands, refused, placements


def table(rows, sets):
    """The markdown table of each set of units: [(title, float datapath, [unit names])]."""
    by_name = {r["unit"]: r for r in rows}
    out = ["| the step's units | float datapath | widest layer, single rail (greedy; lower bound) | "
           "widest layer, packed (greedy; lower bound) | placement found within 2048 | single-rail placement: unit first layer |",
           "|---|---|---:|---:|---|---|"]
    for title, datapath, names in sets:
        units = [by_name[n] for n in names]
        rail, rail_lb, rail_refused, where = fit(units, SINGLE_RAIL_OPERANDS, True)
        pack, pack_lb, pack_refused, _ = fit([packed(u, by_name["unpack64"]) for u in units], PACKED_OPERANDS, False)
        found = [name for name, peak, lb, refused in (("single rail", rail, rail_lb, rail_refused),
                                                      ("packed", pack, pack_lb, pack_refused))
                 if peak <= HIDDEN and not refused]
        none = "no (lower bound above 2048)" if min(rail_lb, pack_lb) > HIDDEN else "none"
        placed = ", ".join(f"{n} {where[n]}" for n in names if n in where)
        out.append(f"| {title} | {datapath} | {rail} ({rail_lb}) | {pack} ({pack_lb}) | "
                   f"{', '.join(found) if found else none} | {placed} |")
    return "\n".join(out)


INTEGER_AND_MEMORY = ["lsu32", "setp_u32", "setp_s32", "logic32", "bra", "mul32", "add64", "shfl", "exit"]
STAGE_SETS = [
    ("dot + FFMA", "FADD, FMUL, FFMA four lanes", INTEGER_AND_MEMORY + ["fadd32", "fmul32", "ffma32"]),
    ("dot + FFMA", "FADD, FMUL four lanes; FFMA lane-serial", INTEGER_AND_MEMORY + ["fadd32", "fmul32", "ffma32x1"]),
    ("dot + FFMA", "FADD four lanes; FMUL, FFMA lane-serial", INTEGER_AND_MEMORY + ["fadd32", "ffma32x1"]),
    ("dot + FFMA", "**FADD, FMUL, FFMA lane-serial (the machine)**", INTEGER_AND_MEMORY + ["ffma32x1"]),
]
