// CPU used by the processes of a measurement, from /proc (Linux): what one sale costs each of
// them, which is steadier on a shared machine than any rate.
import { readdirSync, readFileSync } from 'node:fs';
import { processStats } from './processes.ts';

/**
 * CPU seconds of the PostgreSQL server processes on this machine. With `database`, only the
 * backends connected to it plus the server's shared processes (postmaster, WAL writer,
 * checkpointer, background writer…), so other databases' work on a shared server is left out;
 * without it, every PostgreSQL process.
 */
export function postgresCpuSeconds(database?: string): number {
  let seconds = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      if (database !== undefined) {
        // A backend's title is "postgres: <cluster>: <user> <database> <client> <activity>".
        const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
        const shared =
          title.startsWith('/') ||
          /: (checkpointer|background writer|walwriter|logical replication launcher|autovacuum launcher|archiver|stats collector)$/.test(
            title,
          );
        if (!shared && !title.includes(` ${database} `)) continue;
      }
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      seconds += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // the process ended meanwhile
    }
  }
  return seconds;
}

/** CPU seconds of a process and every process below it (Linux /proc). */
export function treeCpuSeconds(root: number): number {
  const children = new Map<number, number[]>();
  const cpu = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pid = Number(entry);
      const parent = Number(fields[1]);
      cpu.set(pid, (Number(fields[11]) + Number(fields[12])) / 100);
      const list = children.get(parent);
      if (list) list.push(pid);
      else children.set(parent, [pid]);
    } catch {
      // the process ended meanwhile
    }
  }
  let seconds = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    seconds += cpu.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return seconds;
}

export interface CpuBudget {
  /** Microseconds of CPU per unit of work (a sale, a document), by process. */
  gateway: number;
  simulator: number;
  postgres: number;
  loadGenerator: number;
}

/** Measures the CPU each side spends while `run` does `units()` units of work. */
export async function cpuBudget<T>(
  gatewayPids: number[],
  simulatorPid: number,
  run: () => Promise<T>,
  units: (result: T) => number,
  /** Count only this database's PostgreSQL backends (and the server's shared processes). */
  database?: string,
): Promise<{ result: T; budget: CpuBudget }> {
  const gateway = () => gatewayPids.reduce((n, pid) => n + processStats(pid).cpuSeconds, 0);
  const self = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1e6;
  };
  const before = {
    gateway: gateway(),
    simulator: processStats(simulatorPid).cpuSeconds,
    postgres: postgresCpuSeconds(database),
    load: self(),
  };
  const result = await run();
  const n = Math.max(1, units(result));
  const per = (seconds: number) => Math.round((seconds * 1e6) / n);
  return {
    result,
    budget: {
      gateway: per(gateway() - before.gateway),
      simulator: per(processStats(simulatorPid).cpuSeconds - before.simulator),
      postgres: per(postgresCpuSeconds(database) - before.postgres),
      loadGenerator: per(self() - before.load),
    },
  };
}
