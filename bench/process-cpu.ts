import fs from 'node:fs';

/** USER_HZ: the unit of /proc/<pid>/stat's times (`getconf CLK_TCK`, 100 on Linux). */
const CLOCK_TICKS_PER_SECOND = 100;

/** The fields after the command name, which may itself hold spaces and parentheses. */
function statFields(pid: number): string[] {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU seconds (user + system, every thread) a process has used so far; 0 for no process or one that is gone. */
export function cpuSeconds(pid: number | null): number {
  if (pid === null) return 0;
  try {
    const fields = statFields(pid);
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND; // utime, stime
  } catch {
    return 0;
  }
}

/** The first child process of `pid` (the embedded database is the server's child); null when it has none. */
export function childOf(pid: number): number | null {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(statFields(Number(entry))[1]) === pid) return Number(entry);
    } catch {
      /* gone meanwhile */
    }
  }
  return null;
}

/** A process's resident set size now, in MiB (VmRSS of /proc/<pid>/status). */
export function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}
