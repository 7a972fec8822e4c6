// CPU used by the processes of a measurement, from /proc (Linux): what one sale costs each of
// them, which is steadier on a shared machine than any rate.
import { readdirSync, readFileSync } from 'node:fs';
import { processStats } from './processes.ts';

/** CPU seconds of every PostgreSQL server process on this machine (ours and anyone else's). */
export function postgresCpuSeconds(): number {
  let seconds = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      seconds += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // the process ended meanwhile
    }
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
export async function cpuBudget<T>(gatewayPids: number[], simulatorPid: number, run: () => Promise<T>, units: (result: T) => number): Promise<{ result: T; budget: CpuBudget }> {
  const gateway = () => gatewayPids.reduce((n, pid) => n + processStats(pid).cpuSeconds, 0);
  const self = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1e6;
  };
  const before = { gateway: gateway(), simulator: processStats(simulatorPid).cpuSeconds, postgres: postgresCpuSeconds(), load: self() };
  const result = await run();
  const n = Math.max(1, units(result));
  const per = (seconds: number) => Math.round((seconds * 1e6) / n);
  return {
    result,
    budget: {
      gateway: per(gateway() - before.gateway),
      simulator: per(processStats(simulatorPid).cpuSeconds - before.simulator),
      postgres: per(postgresCpuSeconds() - before.postgres),
      loadGenerator: per(self() - before.load),
    },
  };
}
