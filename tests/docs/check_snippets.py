# SPDX-License-Identifier: MIT OR Apache-2.0
"""Compiles every ```cpp block of README.md and docs/*.md, so that the book stays true to the code.

All the blocks of one page make one translation unit, compiled with `-fsyntax-only` after a
precompiled header of the burn headers (<burn/burn.hpp> and the backends' headers). Each block gets
its own namespace, which sees the namespaces of the page's earlier blocks (a `using namespace` of
each), so a block may use what an earlier block of the page declared (`using B = ...`, a struct, a
function), and every block sees `using namespace burn;`, `B` (burn::Cpu<float>) and `AD`
(burn::Autodiff<B>) unless it declares its own. Inside a block, top-level items are told apart line
by line: declarations (templates, structs, classes, enums, functions with a body, `BURN_...` and
other upper-case macros, `extern`, `namespace`) stay at namespace scope, everything else
(statements) goes, in order, into one function body; `using` and `static_assert` go with the item
before them; a specialisation of another namespace's template (`struct burn::train::Adaptor<...>`)
goes to global scope. `#include` lines move to the top of the translation unit. `#line` directives
make the compiler's messages name the markdown file and line.

Markers, an HTML comment on a line of its own just before the fence (blank lines between are
allowed):

  <!-- snippet: skip REASON -->   not compiled (pseudo-code, a compile error shown on purpose, a
                                  generated header); the reason is required
  <!-- snippet: continue -->      the block continues the previous compiled block of the page: its
                                  statements go into a nested scope of the same function body (they
                                  see its local variables and may declare the same names again)
  <!-- snippet: needs vulkan -->  compiled only when the Vulkan (or `cuda`, `onnx`) part is built;
                                  blocks that include <burn/backend/vulkan.hpp> or cuda.hpp, or name
                                  burn::Vulkan / burn::Cuda, need no marker

Usage (ctest runs it with the build's compiler, include directories and definitions):

  python3 tests/docs/check_snippets.py --cxx g++ --work-dir build/default/docs_snippets \\
      --define NDEBUG -I include -I backends/cpu/include [--with vulkan,cuda,onnx] [FILE.md ...]

  or, from a configured build:  python3 tests/docs/check_snippets.py --build-dir build/default
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FENCE_OPEN = re.compile(r"^(\s*)```cpp\s*$")
FENCE_CLOSE = re.compile(r"^\s*```\s*$")
MARKER = re.compile(r"^\s*<!--\s*snippet:\s*(\w+)\s*(.*?)\s*-->\s*$")

# The first words of a top-level item that is a declaration, not a statement.
DECL_START = re.compile(
    r"^(template\b|struct\b|class\b|union\b|enum\b|namespace\b|using\b|typedef\b|static_assert\b|"
    r"extern\b|concept\b|inline\b|constexpr\b|consteval\b|[A-Z][A-Z0-9]*_[A-Z0-9_]*\s*\(|\[\[)")
# `Type name(args...)` followed by a body: a function definition.
FUNC_HEAD = re.compile(r"^[A-Za-z_][\w:<>,\s*&]*?[\s*&>]([A-Za-z_~][\w:]*)\s*\(")
STATEMENT_WORDS = {"return", "if", "for", "while", "switch", "try", "catch", "else", "do", "auto",
                   "const", "co_return", "throw", "delete", "new", "goto", "break", "continue"}

PRELUDE_STD = ["algorithm", "array", "atomic", "chrono", "cmath", "cstddef", "cstdint", "cstdio",
               "filesystem", "fstream", "functional", "iostream", "map", "memory", "numeric",
               "optional", "random", "span", "sstream", "stdexcept", "string", "thread", "tuple",
               "utility", "variant", "vector"]


# What every block sees, besides the names declared by the page's earlier blocks: the names the pages
# use without declaring them. A block's own `using B = ...` hides these.
CONTEXT = """namespace snippet_context {
using namespace burn;
using B = burn::Cpu<float>;
using AD = burn::Autodiff<B>;
}  // namespace snippet_context
"""


class Block:
    def __init__(self, page, line, lines, markers):
        self.page = page          # path relative to the repository root
        self.line = line          # 1-based line of the first code line
        self.lines = lines        # the code lines, indentation of the fence removed
        self.markers = markers    # {"skip": reason, "continue": "", "needs": "vulkan"}


def extract(path, rel):
    """The ```cpp blocks of one markdown file, with the markers written before each."""
    text = path.read_text(encoding="utf-8").split("\n")
    blocks = []
    pending = {}
    i = 0
    while i < len(text):
        m = MARKER.match(text[i])
        if m:
            kind, arg = m.group(1), m.group(2)
            if kind not in ("skip", "continue", "needs"):
                raise SystemExit(f"{rel}:{i + 1}: unknown snippet marker '{kind}'")
            if kind == "skip" and not arg:
                raise SystemExit(f"{rel}:{i + 1}: 'snippet: skip' needs a reason")
            pending[kind] = arg
            i += 1
            continue
        m = FENCE_OPEN.match(text[i])
        if m:
            indent = len(m.group(1))
            j = i + 1
            while j < len(text) and not FENCE_CLOSE.match(text[j]):
                j += 1
            code = [ln[indent:] if ln[:indent].strip() == "" else ln for ln in text[i + 1:j]]
            blocks.append(Block(rel, i + 2, code, pending))
            pending = {}
            i = j + 1
            continue
        if text[i].strip() and not text[i].lstrip().startswith("<!--"):
            pending = {}
        i += 1
    return blocks


def strip_for_counting(line):
    """The line without comments, string and character literals (for brace counting)."""
    line = re.sub(r'R"([^(]*)\(.*?\)\1"', '""', line)
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
    line = re.sub(r"//.*", "", line)
    return line


def split_items(lines):
    """Top-level items of a block: (first line index, lines, is_declaration)."""
    items = []
    cur, start, depth, paren = [], None, 0, 0
    comments = []
    for k, line in enumerate(lines):
        s = line.strip()
        if not cur:
            if s == "" or s.startswith("//") or s.startswith("///"):
                if s:
                    comments.append((k, line))
                continue
            if s.startswith("#"):
                items.append((k, [line], "include" if s.startswith("#include") else "decl"))
                comments = []
                continue
            start = k
        cur.append(line)
        code = strip_for_counting(line)
        depth += code.count("{") - code.count("}")
        paren += code.count("(") - code.count(")")
        code_s = code.strip()
        macro = re.match(r"[A-Z][A-Z0-9_]*\s*\(", cur[0].strip()) and code_s.endswith(")")
        if depth <= 0 and paren <= 0 and (code_s.endswith(";") or code_s.endswith("}") or macro):
            # `} catch (...) {`, `} else {` and `} while (...)` continue the statement.
            items.append((start, cur, classify(cur)))
            cur, depth, paren = [], 0, 0
    if cur:
        items.append((start, cur, classify(cur)))
    # `using` and `static_assert` are valid in both places: they follow the item before them
    # (declarations at the start of a block stay at namespace scope).
    kind = "decl"
    for n, (k, item, what) in enumerate(items):
        if what == "both":
            items[n] = (k, item, kind)
        elif what in ("decl", "stmt"):
            kind = what
    return items


def classify(item_lines):
    first = item_lines[0].strip()
    joined_head = " ".join(ln.strip() for ln in item_lines[:3])
    if re.match(r"(template\s*<.*?>\s*)?(struct|class)\s+(::)?[A-Za-z_]\w*::", joined_head):
        # A specialisation of a class template of another namespace (burn::train::Adaptor<...>)
        # is declared at global scope.
        return "global"
    if re.match(r"(using|static_assert)\b", first):
        return "both"
    if DECL_START.match(first):
        return "decl"
    word = re.match(r"[A-Za-z_]\w*", first)
    if word and word.group(0) in STATEMENT_WORDS:
        return "stmt"
    joined = " ".join(strip_for_counting(ln).strip() for ln in item_lines)
    m = FUNC_HEAD.match(joined)
    if m and "<<" not in joined[:m.end()] and "=" not in joined[:m.end()]:
        # A function definition has a body after its parameter list.
        rest = joined[m.end() - 1:]
        depth = 0
        for pos, ch in enumerate(rest):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0:
                tail = rest[pos + 1:].lstrip()
                if tail.startswith("{") or re.match(r"(const|noexcept|override|->|requires)\b",
                                                    tail):
                    return "decl"
                break
    return "stmt"


def needs_of(block):
    text = "\n".join(block.lines)
    needs = set()
    if "needs" in block.markers:
        needs.update(x.strip() for x in block.markers["needs"].split(",") if x.strip())
    if re.search(r"backend/vulkan\.hpp|\bVulkan<|\bVulkanDevice\b|burn::vk::|vulkan_devices", text):
        needs.add("vulkan")
    if re.search(r"backend/cuda\.hpp|\bCuda<|\bCudaDevice\b|cuda_device_info|cuda_memory_stats",
                 text):
        needs.add("cuda")
    return needs


def translation_unit(rel, blocks, prelude):
    """The source of one page's translation unit; returns (source, compiled, skipped)."""
    units = []   # [[namespace, decl parts, stmt parts]]
    includes = []
    compiled, skipped = [], []
    for b in blocks:
        if "skip" in b.markers:
            skipped.append((b, b.markers["skip"]))
            continue
        if b.needs_missing:
            skipped.append((b, "needs " + ", ".join(sorted(b.needs_missing)) + " (not built)"))
            continue
        compiled.append(b)
        if "continue" not in b.markers or not units:
            units.append([f"snippet_l{b.line}", [], []])
        elif units[-1][2]:
            # A nested scope: the block sees the earlier blocks' variables and may redeclare them.
            units[-1][2].append("{\n")
        unit = units[-1]
        for k, item, kind in split_items(b.lines):
            directive = f'#line {b.line + k} "{rel}"\n'
            part = directive + "\n".join(item) + "\n"
            if kind == "include":
                includes.append(part)
            elif kind == "decl":
                unit[1].append(part)
            elif kind == "global":
                unit[1].append(("global", part))
            else:
                unit[2].append(part)
    out = [f'#include "{prelude}"\n']
    out += includes
    out.append(CONTEXT)
    seen = ["snippet_context"]
    for ns, decls, stmts in units:
        out.append(f"namespace {ns} {{\n")
        out += [f"using namespace {s};\n" for s in seen]
        for part in decls:
            if isinstance(part, tuple):
                # Leave the block's namespace for the specialisation; its names stay visible.
                out.append(f"}}  // namespace {ns}\nusing namespace {ns};\n{part[1]}"
                           f"namespace {ns} {{\n")
            else:
                out.append(part)
        if stmts:
            out.append(f"[[maybe_unused]] auto {ns}_body() {{\n")
            out += stmts
            out.append("}" * (1 + stmts.count("{\n")) + "\n")
        out.append(f"}}  // namespace {ns}\n")
        seen.append(ns)
    return "".join(out), compiled, skipped


def compile_cmd(args, extra):
    cmd = [args.cxx, f"-std={args.std}", "-fsyntax-only", "-Winvalid-pch",
           "-fdiagnostics-color=never", "-w"]
    cmd += [f"-D{d}" for d in args.define]
    cmd += [f"-I{i}" for i in args.include]
    return cmd + extra


def first_error(output):
    lines = output.splitlines()
    for k, ln in enumerate(lines):
        if ": error:" in ln or ": fatal error:" in ln:
            ctx = [ln]
            # the "In function" line before it, when any, helps less than the lines after it
            for more in lines[k + 1:k + 4]:
                if re.search(r": (error|note|warning):", more) and "required from" not in more:
                    break
                ctx.append(more)
            return "\n".join(ctx)
    return "\n".join(lines[:10])


def from_compile_commands(args):
    """Include directories and definitions of the build's library targets."""
    db = json.loads((Path(args.build_dir) / "compile_commands.json").read_text())
    includes, defines = [], []
    cxx = None
    for entry in db:
        f = entry["file"]
        if "/backends/" not in f or "/src/" not in f:
            continue
        argv = entry.get("arguments") or shlex.split(entry["command"])
        cxx = cxx or argv[0]
        for idx, a in enumerate(argv):
            inc = None
            if a.startswith("-I"):
                inc = a[2:] or argv[idx + 1]
            elif a == "-isystem":
                inc = argv[idx + 1]
            if inc and "/include" in inc and "/src" not in inc and inc not in includes:
                includes.append(inc)
            if a.startswith("-D") and a[2:] in ("NDEBUG",) and a[2:] not in defines:
                defines.append(a[2:])
    with_parts = [p for p in ("vulkan", "cuda") if any(f"backends/{p}/include" in i
                                                         for i in includes)]
    if any("/src/onnx/" in e["file"] for e in db):
        with_parts.append("onnx")
    return cxx, includes, defines, with_parts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cxx", default=None)
    ap.add_argument("--std", default="c++20")
    ap.add_argument("-I", "--include", action="append", default=[])
    ap.add_argument("-D", "--define", action="append", default=[])
    ap.add_argument("--with", dest="with_parts", default="",
                    help="parts built besides cpu, comma-separated: vulkan,cuda,onnx")
    ap.add_argument("--build-dir", help="take the compiler, -I and -D from its compile_commands.json")
    ap.add_argument("--work-dir", help="where the precompiled header and sources go")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()

    with_parts = {p for p in args.with_parts.split(",") if p}
    if args.build_dir:
        cxx, inc, defs, parts = from_compile_commands(args)
        args.cxx = args.cxx or cxx
        args.include = args.include or inc
        args.define = args.define or defs
        with_parts |= set(parts)
    args.cxx = args.cxx or "g++"
    args.include = [str((ROOT / i).resolve()) for i in args.include]
    work = Path(args.work_dir or (Path(args.build_dir or ROOT / "build") / "docs_snippets"))
    work = work.resolve()
    work.mkdir(parents=True, exist_ok=True)

    files = [Path(f).resolve() for f in args.files] or \
        [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))

    # The precompiled header: the same flags as every page.
    prelude = work / "snippet_prelude.hpp"
    headers = ["burn/burn.hpp", "burn/backend/cpu.hpp", "burn/record/pytorch.hpp"]
    headers += [f"burn/backend/{p}.hpp" for p in ("vulkan", "cuda") if p in with_parts]
    src = "// Generated by tests/docs/check_snippets.py\n#pragma once\n"
    src += "".join(f"#include <{h}>\n" for h in headers)
    src += "".join(f"#include <{h}>\n" for h in PRELUDE_STD)
    if not prelude.exists() or prelude.read_text() != src:
        prelude.write_text(src)
    flags_key = " ".join(compile_cmd(args, [])) + "\n" + src
    stamp = work / "snippet_prelude.flags"
    gch = work / "snippet_prelude.hpp.gch"
    t0 = time.time()
    cpu0 = os.times()
    if not gch.exists() or not stamp.exists() or stamp.read_text() != flags_key or \
            gch.stat().st_mtime < max(p.stat().st_mtime for d in args.include
                                      for p in Path(d).rglob("*.hpp")):
        cmd = compile_cmd(args, ["-x", "c++-header", str(prelude), "-o", str(gch)])
        cmd.remove("-fsyntax-only")
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            print("precompiled header failed:\n" + first_error(r.stderr))
            return 1
        stamp.write_text(flags_key)

    jobs = []
    n_blocks = n_skipped = 0
    skipped_all = []
    for path in files:
        rel = str(path.relative_to(ROOT))
        blocks = extract(path, rel)
        if not blocks:
            continue
        for b in blocks:
            b.needs_missing = {n for n in needs_of(b) if n not in with_parts}
        # A continued block needs what the blocks it continues need.
        for prev, b in zip(blocks, blocks[1:]):
            if "continue" in b.markers:
                b.needs_missing |= prev.needs_missing
        source, compiled, skipped = translation_unit(rel, blocks, prelude)
        n_blocks += len(compiled)
        n_skipped += len(skipped)
        skipped_all += [(rel, b.line, why) for b, why in skipped]
        if not compiled:
            continue
        tu = work / (rel.replace("/", "_").replace(".md", "") + ".cpp")
        tu.write_text(source)
        jobs.append((rel, tu, compiled))

    def run(job):
        rel, tu, compiled = job
        start = time.time()
        r = subprocess.run(compile_cmd(args, [str(tu)]), capture_output=True, text=True)
        return rel, tu, compiled, r, time.time() - start

    failures = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for rel, tu, compiled, r, secs in pool.map(run, jobs):
            if r.returncode == 0:
                print(f"ok    {rel}: {len(compiled)} blocks ({secs:.1f} s)")
                continue
            failures += 1
            err = first_error(r.stderr)
            m = re.search(re.escape(rel) + r":(\d+)", err)
            where = ""
            if m:
                line = int(m.group(1))
                owner = [b for b in compiled if b.line <= line]
                if owner:
                    where = f" (the block at {rel}:{owner[-1].line})"
            print(f"FAIL  {rel}{where}\n{err}\n  (translation unit: {tu})")
    cpu1 = os.times()
    cpu = (cpu1.children_user + cpu1.children_system) - (cpu0.children_user + cpu0.children_system)
    for rel, line, why in skipped_all:
        print(f"skip  {rel}:{line}: {why}")
    print(f"{n_blocks} blocks compiled, {n_skipped} skipped, {failures} pages failed; "
          f"{time.time() - t0:.1f} s wall, {cpu:.1f} s CPU")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
