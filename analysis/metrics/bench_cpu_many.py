"""CPU time per process (user + sys, from getrusage of the children) averaged over many runs,
for commands too short for GNU time's 10 ms resolution (the Robust 2003-sized run).

Usage: python3 analysis/metrics/bench_cpu_many.py RUNS LABEL -- COMMAND... [--- LABEL -- COMMAND...]
Prints: label, runs, mean CPU s per run, and the mean of each block of RUNS/5 runs (spread).
"""
import resource
import subprocess
import sys


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    runs = int(sys.argv[1])
    groups, cur = [], []
    for a in sys.argv[2:]:
        if a == "---":
            groups.append(cur)
            cur = []
        else:
            cur.append(a)
    groups.append(cur)
    # Interleave the tools run by run, so a change in the machine's load hits all of them.
    blocks = {g[0]: [] for g in groups}
    per_block = max(1, runs // 5)
    for b in range(0, runs, per_block):
        for g in groups:
            label, cmd = g[0], g[2:]
            t0 = cpu()
            for _ in range(min(per_block, runs - b)):
                subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
            blocks[label].append((cpu() - t0) / min(per_block, runs - b))
    for label, v in blocks.items():
        print(f"{label}\t{runs}\t{sum(v) / len(v):.4f}\t" + " ".join(f"{x:.4f}" for x in v))


if __name__ == "__main__":
    main()
