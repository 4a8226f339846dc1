"""Does one machine step's units stage fit hidden 2048? A placement of measured units.

docs/machine.md §5.2 plans layers 9–37 of the step for the memory pipeline (from 9) and the
functional units (from 13, after operand select at 12), all read by the result select at 38.
This module places compiled units (their measured per-layer channel counts from
`qgpu compile units --json`) into that window and reports the widest layer: a unit at start
s with depth d holds channels_per_layer[t - s] (the channels holding a value after layer
t's MLP) for s <= t < s + d, then its outputs until the window ends (they wait for the
result select). Two encodings of the operands every unit reads (per lane a, b, c):

* single rail: one channel per bit, 4 lanes x 3 x 64 = 768 channels beside the units, which
  read them directly (the per-layer counts as measured);
* packed: 16-bit chunks in integer channels, 4 x 3 x 4 = 48 channels; each unit first
  unpacks its input bits (one more layer, holding them) and packs its result into chunks
  (a merged sum of its last level: one channel per 16 bits) for the wait.

The placement is greedy (largest area first, each at the start that keeps the running peak
lowest, ties to the earliest start), so its peak is an upper bound of the best placement's;
the lower bound is the larger of the widest unit layer and the area over the window's layers.
"""

WINDOW_FIRST = 9    # the memory pipeline's first layer (§5.2 plan)
UNITS_FIRST = 13    # after operand select at 12
WINDOW_LAST = 37    # the result select reads at 38
SINGLE_RAIL_OPERANDS = 4 * 3 * 64
PACKED_OPERANDS = 4 * 3 * 4
HIDDEN = 2048

# Memory units may start with the window; the others after operand select.
MEMORY_UNITS = {"lsu32", "lsu32x1"}


def occupancy(unit, start, length):
    prof = unit["channels_per_layer"]
    occ = [0] * length
    for t in range(start, length):
        occ[t] = prof[t - start] if t - start < len(prof) else unit["outputs"]
    return occ


def place(units):
    """Greedy placement of `units` (rows of `qgpu compile units --json`) into the window.
    Returns (placements {name: first layer}, per-layer channels, refused names)."""
    length = WINDOW_LAST - WINDOW_FIRST + 1
    load = [0] * length
    placements, refused = {}, []
    for u in sorted(units, key=lambda u: (-sum(u["channels_per_layer"]), u["unit"])):
        first = 0 if u["unit"] in MEMORY_UNITS else UNITS_FIRST - WINDOW_FIRST
        best = None
        for s in range(first, length - u["layers"] + 1):
            trial = [a + b for a, b in zip(load, occupancy(u, s, length))]
            key = (max(trial), s)
            if best is None or key < best[0]:
                best = (key, s, trial)
        if best is None:
            refused.append(u["unit"])
            continue
        placements[u["unit"]] = WINDOW_FIRST + best[1]
        load = best[2]
    return placements, load, refused


def packed(unit):
    """`unit` as the packed encoding runs it: an unpack layer first, its result in chunks."""
    u = dict(unit)
    u["layers"] = unit["layers"] + 1
    u["channels_per_layer"] = [unit["inputs"]] + list(unit["channels_per_layer"])
    u["outputs"] = -(-unit["outputs"] // 16)
    return u


def lower_bound(units):
    length = WINDOW_LAST - WINDOW_FIRST + 1
    widest = max(max(u["channels_per_layer"]) for u in units)
    area = sum(sum(u["channels_per_layer"]) for u in units)
    return max(widest, -(-area // length))


def fit(units, operands):
    """(greedy peak, lower bound, refused) of `units` with `operands` channels beside them."""
    placements, load, refused = place(units)
    return max(load) + operands, lower_bound(units) + operands, refused, placements


def table(rows, sets):
    """The markdown table of each named set of units: {title: [unit names]}."""
    by_name = {r["unit"]: r for r in rows}
    out = ["| the step's units | float datapath | widest layer, single rail (greedy; lower bound) | "
           "widest layer, packed (greedy; lower bound) | fits 2048 (packed) | packed placement: unit first layer |",
           "|---|---|---:|---:|---|---|"]
    for title, (datapath, names) in sets.items():
        units = [by_name[n] for n in names]
        rail, rail_lb, rail_refused, _ = fit(units, SINGLE_RAIL_OPERANDS)
        pack, pack_lb, pack_refused, where = fit([packed(u) for u in units], PACKED_OPERANDS)
        note = lambda refused: f"; no room in depth for {', '.join(refused)}" if refused else ""
        fits = "yes" if pack <= HIDDEN and not pack_refused else ("**no**" if pack_lb > HIDDEN else "not found")
        placed = ", ".join(f"{n} {where[n]}" for n in names if n in where)
        out.append(f"| {title} | {datapath} | {rail} ({rail_lb}){note(rail_refused)} | {pack} ({pack_lb}){note(pack_refused)} "
                   f"| {fits} | {placed} |")
    return "\n".join(out)


INTEGER_AND_MEMORY = ["lsu32", "setp_u32", "setp_s32", "logic32", "bra", "mul32", "add64", "shfl", "exit"]
STAGE_SETS = {
    "dot, FFMA four lanes": ("FADD, FMUL, FFMA four lanes", INTEGER_AND_MEMORY + ["fadd32", "fmul32", "ffma32"]),
    "dot + FFMA": ("FADD, FMUL four lanes; FFMA lane-serial", INTEGER_AND_MEMORY + ["fadd32", "fmul32", "ffma32x1"]),
    "dot + FFMA (the machine)": ("FADD four lanes; FMUL, FFMA lane-serial", INTEGER_AND_MEMORY + ["fadd32", "ffma32x1"]),
    "dot + FFMA, all serial": ("FADD, FMUL, FFMA lane-serial", INTEGER_AND_MEMORY + ["ffma32x1"]),
}
