// What the machine was doing around a measurement, so a reader can judge the noise: load
// averages, and the CPU the measured processes themselves used.
import { cpus, loadavg } from 'node:os';

export interface MachineLoad {
  /** 1-minute load average before and after. */
  loadBefore: number;
  loadAfter: number;
}

export async function withLoad<T>(run: () => Promise<T>): Promise<T & { load: MachineLoad }> {
  const loadBefore = Math.round(loadavg()[0]! * 100) / 100;
  const result = await run();
  return { ...result, load: { loadBefore, loadAfter: Math.round(loadavg()[0]! * 100) / 100 } };
}

export function machine() {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}
