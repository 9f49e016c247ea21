#!/usr/bin/python3
"""Runs a command and measures its whole process tree: peak RSS of the largest process, peak
of the summed RSS, CPU seconds (user+sys) of every process seen, and wall seconds.

Usage: treepeak.py [--interval S] CMD ARGS...   (the command's stdout goes to /dev/null)
Prints: max_rss_kb=… sum_rss_kb=… cpu_s=… wall_s=… procs=…

Why not /usr/bin/time or hyperfine's user/sys alone: quarry runs strategies in plugin
processes; when one dies with its parent (parent-death SIGKILL) instead of being waited for,
getrusage of the children does not include it and its memory and CPU would be missing.
Polling /proc sees them. VmHWM is each process's own peak, so a short-lived peak between polls is still caught;
CPU used after the last poll of a process is not (at most one interval per process).
"""
import os
import resource
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def children_map():
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as fp:
                stat = fp.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(d))
    return kids


def tree(root):
    kids, out, todo = children_map(), [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def sample(pid):
    """(VmHWM kB, VmRSS kB, cpu seconds) of one process, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as fp:
            status = fp.read()
        with open(f"/proc/{pid}/stat") as fp:
            stat = fp.read()
    except OSError:
        return None
    hwm = rss = 0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            hwm = int(line.split()[1])
        elif line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    f = stat[stat.rindex(")") + 2:].split()
    return hwm, rss, (int(f[11]) + int(f[12])) / TICK


def main():
    args = sys.argv[1:]
    interval = 0.02
    if args[:1] == ["--interval"]:
        interval, args = float(args[1]), args[2:]
    if not args:
        sys.exit(__doc__)
    start = time.monotonic()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    peak, peak_sum, cpu = 0, 0, {}
    while proc.poll() is None:
        total = 0
        for pid in tree(proc.pid):
            s = sample(pid)
            if s:
                peak = max(peak, s[0])
                total += s[1]
                cpu[pid] = s[2]
        peak_sum = max(peak_sum, total)
        time.sleep(interval)
    wall = time.monotonic() - start
    # The direct child was waited for by poll(): its rusage is exact and includes the
    # descendants it waited for itself (quarry waits for its plugins on a clean exit), but not
    # those that died with it unwaited. The samples see every process but miss each one's last
    # interval. Whichever total is larger is the better account; adding them would count
    # waited plugins twice.
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    total_cpu = max(ru.ru_utime + ru.ru_stime, sum(cpu.values()))
    peak = max(peak, ru.ru_maxrss)
    print(f"max_rss_kb={peak} sum_rss_kb={peak_sum} cpu_s={total_cpu:.3f} wall_s={wall:.3f} "
          f"procs={len(cpu)} exit={proc.returncode}")
    sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
