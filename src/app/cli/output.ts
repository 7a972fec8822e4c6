export const EXIT = { ok: 0, failure: 1, usage: 2, config: 3, locked: 4, notFound: 5, notCertified: 6, dataDir: 7 } as const;

export class UsageError extends Error {}

export function print(json: boolean, value: unknown, human: string): void {
  process.stdout.write(json ? JSON.stringify(value, null, 2) + '\n' : human + '\n');
}

/** Refuses what a command does not take (a stray argument is a typo, never ignored). */
export function noMoreArguments(args: string[], command: string): void {
  if (args.length > 0) throw new UsageError(`${command} takes no further arguments, got: ${args.join(' ')}`);
}

/** Rows under a header line, each column padded to its widest cell (the last one is not padded). */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ');
  return [header, ...rows].map(line).join('\n');
}
