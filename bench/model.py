#!/usr/bin/env python3
"""Modelled cycles for a counted run of the benchmark (bench/aarch64-insns.sh,
bench/x86-insns.sh with WHATENC_BENCH_BLOCKS set).

The counts say how many instructions ran, not how long they take: a vector
instruction and a scalar one count the same, and neither the instructions a cycle
nor the dependencies between them count. This puts a CPU's pipeline model on the
counts: the plugin (bench/qemu/insn_count.c, `blocks=`) wrote each translation block
that ran in a measured interval, its bytes and its executions; each block is
disassembled (llvm-mc) and its cycles an execution, in a loop of itself, are
estimated with LLVM's scheduling model of the CPU (llvm-mca); an implementation's
cycles are the sum over its blocks of executions × cycles. What that leaves out:
mispredicted branches, cache misses, and dependencies from one block to the next
(a block is modelled as if it ran back to back with itself).

Usage: bench/model.py RESULTS BLOCKS TRIPLE MCPU [OUT]
  RESULTS  the benchmark's stdout (its INTERVAL and RESULT lines)
  BLOCKS   the plugin's `blocks=` file
  TRIPLE   aarch64 or x86_64; MCPU as llvm-mca's -mcpu (neoverse-n1, znver3, ...)
Prints `RESULT` lines as the benchmark's, each rate in bytes of input per thousand
modelled cycles, to OUT or stdout; then, on stderr, whatenc / encoding_rs by
operation (geometric mean, cases below 1.0), counted and modelled.
"""
import math
import concurrent.futures
import os
import re
import subprocess
import sys


def tool(name):
    for candidate in (name + "-14", name):
        if subprocess.run(["sh", "-c", f"command -v {candidate}"], capture_output=True).returncode == 0:
            return candidate
    sys.exit(f"{name} not found (Debian: apt-get install llvm)")


def main():
    results, blocks_file, triple, mcpu = sys.argv[1:5]
    out = open(sys.argv[5], "w") if len(sys.argv) > 5 else sys.stdout
    mc, mca = tool("llvm-mc"), tool("llvm-mca")
    # The intervals in order, and the bytes of each block.
    intervals, code = [], {}
    for line in open(blocks_file):
        fields = line.split()
        if fields[0] == "interval":
            intervals.append({})
        elif fields[0] == "bytes":
            code[fields[1]] = fields[2]
        else:
            intervals[-1][fields[0]] = int(fields[1])

    def cycles(hexbytes):
        """The block's instructions and its cycles an execution."""
        text = " ".join("0x" + hexbytes[i : i + 2] for i in range(0, len(hexbytes), 2))
        asm = subprocess.run([mc, "--disassemble", f"-triple={triple}", f"-mcpu={mcpu}"], input=text,
                             capture_output=True, text=True).stdout
        lines = [l for l in asm.splitlines() if l.strip() and not l.strip().startswith(".")]
        if not lines:
            return 0, 0.0
        iterations = 100
        report = subprocess.run([mca, f"-mtriple={triple}", f"-mcpu={mcpu}", f"-iterations={iterations}"],
                                input="\n".join(lines) + "\n", capture_output=True, text=True)
        total = re.search(r"Total Cycles:\s+(\d+)", report.stdout)
        if not total:
            # An instruction the model has not: one cycle each.
            return len(lines), float(len(lines))
        return len(lines), int(total.group(1)) / iterations

    unique = sorted(set(code.values()))
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        modelled = dict(zip(unique, pool.map(cycles, unique)))
    # Each INTERVAL line names the interval the plugin closed then; a case's RESULT
    # lines follow its intervals.
    pending, index, after_results, rates = [], 0, False, {}
    for line in open(results):
        fields = line.rstrip("\n").split("\t")
        if fields[0] == "INTERVAL":
            if after_results:
                pending, after_results = [], False
            pending.append((fields[1], intervals[index]))
            index += 1
        elif fields[0] == "RESULT":
            after_results = True
            _, document, op, implementation, rate = fields
            blocks = next((b for name, b in pending if name == implementation), None)
            if blocks is None:
                continue
            insns = sum(count * modelled[code[b]][0] for b, count in blocks.items())
            total = sum(count * modelled[code[b]][1] for b, count in blocks.items())
            # rate = bytes × 1000 / instructions, so bytes × 1000 / cycles is this.
            modelled_rate = float(rate) * insns / total
            out.write(f"RESULT\t{document}\t{op}\t{implementation}\t{modelled_rate:.1f}\n")
            rates.setdefault((document, op), {})[implementation] = (float(rate), modelled_rate)
    summary(rates, mcpu)


def summary(rates, mcpu):
    """whatenc / encoding_rs by operation, counted and modelled, on stderr."""
    by_op = {}
    for (_, op), implementations in rates.items():
        if "whatenc" in implementations and "encoding_rs" in implementations:
            (wc, wm), (ec, em) = implementations["whatenc"], implementations["encoding_rs"]
            by_op.setdefault(op, []).append((wc / ec, wm / em))
    by_op["all"] = [r for op in list(by_op) for r in by_op[op]]

    def cell(ratios):
        mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        return f"{mean:.2f} ({sum(r < 1 for r in ratios)} of {len(ratios)} below 1.0)"

    print(f"| operation | counted | modelled ({mcpu}) |", file=sys.stderr)
    print("|---|---|---|", file=sys.stderr)
    for op, pairs in by_op.items():
        print(f"| {op} | {cell([c for c, _ in pairs])} | {cell([m for _, m in pairs])} |", file=sys.stderr)


if __name__ == "__main__":
    main()
