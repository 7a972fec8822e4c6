// Reads a V8 .cpuprofile (node --cpu-prof) into the functions that took the CPU. Samples in
// `(idle)` and in `writev` are left out: here the latter is the thread waiting while the kernel
// hands the CPU to the process it just woke (PostgreSQL, the simulator), not work of its own.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const NOT_WORK = new Set(['(idle)', 'writev', 'epoll_wait']);

export interface HotSpot {
  name: string;
  /** Share of the working samples, in percent. */
  self: number;
}

function label(node: ProfileNode): string {
  const url = node.callFrame.url.replace(/^.*?\/(node_modules|src|bench)\//, '$1/');
  return `${node.callFrame.functionName || '(anonymous)'} ${url}${url ? `:${node.callFrame.lineNumber + 1}` : ''}`.trim();
}

/**
 * Functions by their own (self) time, and packages/source files the same way. `skipMs`: leave
 * out the first milliseconds of the profile (start-up, warm-up).
 */
export function hotSpots(path: string, options: { top?: number; skipMs?: number } = {}): { functions: HotSpot[]; modules: HotSpot[] } {
  const top = options.top ?? 25;
  const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const fn = new Map<string, number>();
  const mod = new Map<string, number>();
  let total = 0;
  let at = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    at += dt;
    const node = byId.get(id)!;
    if (at < (options.skipMs ?? 0) * 1000 || NOT_WORK.has(node.callFrame.functionName)) return;
    total += dt;
    fn.set(label(node), (fn.get(label(node)) ?? 0) + dt);
    const url = node.callFrame.url;
    const pkg =
      /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)?.[1] ??
      /\/(src\/[^/]+(\/[^/]+)?)/.exec(url)?.[1] ??
      (url || node.callFrame.functionName);
    mod.set(pkg, (mod.get(pkg) ?? 0) + dt);
  });
  const ranked = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, t]) => ({ name, self: Math.round((1000 * t) / Math.max(total, 1)) / 10 }));
  return { functions: ranked(fn), modules: ranked(mod) };
}
