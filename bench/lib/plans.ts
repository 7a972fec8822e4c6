// The plans PostgreSQL ran, as `EXPLAIN (ANALYZE, BUFFERS)` shows them, for every statement a
// gateway process sends: auto_explain, loaded per session through the connection's `options`
// (no server restart, only the sessions of that DATABASE_URL), logs each statement's plan with
// its actual rows, time and buffers to the server's log, which this reads back (the log file of
// Debian's cluster: BENCH_PG_LOG names another). The server's log_line_prefix must name the
// database (`%d`), as Debian's default `%m [%p] %q%u@%d ` does.
import { closeSync, openSync, readSync, statSync } from 'node:fs';

export const PG_LOG = process.env.BENCH_PG_LOG ?? '/var/log/postgresql/postgresql-15-main.log';

/** `databaseUrl` whose sessions log every statement's plan with EXPLAIN ANALYZE's figures. */
export function explainingUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  // The gateway's own pool options are replaced by the URL's: keep its plan_cache_mode (database.ts).
  const options = [
    'plan_cache_mode=force_generic_plan',
    'session_preload_libraries=auto_explain',
    'auto_explain.log_min_duration=0',
    'auto_explain.log_analyze=on',
    'auto_explain.log_buffers=on',
    'auto_explain.log_timing=on',
    'auto_explain.log_nested_statements=on',
    'auto_explain.log_format=json',
  ];
  url.searchParams.set('options', options.map((o) => `-c ${o}`).join(' '));
  return url.toString();
}

export function logOffset(): number {
  return statSync(PG_LOG).size;
}

function readFrom(offset: number): string {
  const size = statSync(PG_LOG).size;
  if (size <= offset) return '';
  const fd = openSync(PG_LOG, 'r');
  try {
    const buffer = Buffer.alloc(size - offset);
    readSync(fd, buffer, 0, buffer.length, offset);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

export interface LoggedPlan {
  at: number;
  database: string;
  query: string;
  ms: number;
  sharedBlocks: number;
  /** Rows the scans of tables and indexes produced or filtered out, summed over loops. */
  rowsScanned: number;
  /** Tables read by a Seq Scan, with the rows each read. */
  seqScans: Array<{ table: string; rows: number }>;
  nodes: string[];
}

function walk(node: PlanNode, out: { rows: number; seq: Array<{ table: string; rows: number }>; nodes: string[] }): void {
  const loops = node['Actual Loops'] ?? 1;
  const scanned = ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * loops;
  if (node['Node Type'].includes('Scan') && node['Relation Name']) {
    out.rows += scanned;
    out.nodes.push(`${node['Node Type']} ${node['Relation Name']}${node['Index Name'] ? ` (${node['Index Name']})` : ''}: ${scanned}`);
  }
  if (node['Node Type'] === 'Seq Scan' && node['Relation Name']) out.seq.push({ table: node['Relation Name'], rows: scanned });
  for (const child of node.Plans ?? []) walk(child, out);
}

const ENTRY = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \w+) \[\d+\] [^@\s]*@(\S+) LOG:\s+duration: ([\d.]+) ms\s+plan:\s*$/;
const LINE_START = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/;

/** The plans logged since `offset` for the databases named. */
export function plansSince(offset: number, databases: string[]): LoggedPlan[] {
  const wanted = new Set(databases);
  const lines = readFrom(offset).split('\n');
  const plans: LoggedPlan[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = ENTRY.exec(lines[i]!);
    if (!m || !wanted.has(m[2]!)) continue;
    const body: string[] = [];
    while (i + 1 < lines.length && !LINE_START.test(lines[i + 1]!)) body.push(lines[++i]!);
    let parsed: { 'Query Text': string; Plan: PlanNode };
    try {
      parsed = JSON.parse(body.join('\n')) as typeof parsed;
    } catch {
      continue;
    }
    const out = { rows: 0, seq: [] as Array<{ table: string; rows: number }>, nodes: [] as string[] };
    walk(parsed.Plan, out);
    plans.push({
      at: Date.parse(m[1]!.replace(' UTC', 'Z').replace(' ', 'T')),
      database: m[2]!,
      query: parsed['Query Text'].replace(/\s+/g, ' ').trim(),
      ms: Number(m[3]),
      sharedBlocks: (parsed.Plan['Shared Hit Blocks'] ?? 0) + (parsed.Plan['Shared Read Blocks'] ?? 0),
      rowsScanned: out.rows,
      seqScans: out.seq,
      nodes: out.nodes,
    });
  }
  return plans;
}

export interface StatementFigures {
  query: string;
  calls: number;
  medianMs: number;
  maxRowsScanned: number;
  maxSharedBlocks: number;
  seqScans: string[];
  plan: string[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.floor(s.length / 2)]!;
};

/** Plans grouped by statement text (parameters are $n: one entry per statement). */
export function byStatement(plans: LoggedPlan[]): StatementFigures[] {
  const groups = new Map<string, LoggedPlan[]>();
  for (const p of plans) groups.set(p.query, [...(groups.get(p.query) ?? []), p]);
  return [...groups.entries()].map(([query, ps]) => {
    const worst = ps.reduce((a, b) => (b.rowsScanned > a.rowsScanned ? b : a));
    return {
      query,
      calls: ps.length,
      medianMs: Math.round(median(ps.map((p) => p.ms)) * 1000) / 1000,
      maxRowsScanned: worst.rowsScanned,
      maxSharedBlocks: Math.max(...ps.map((p) => p.sharedBlocks)),
      seqScans: [...new Set(ps.flatMap((p) => p.seqScans.map((s) => s.table)))],
      plan: worst.nodes,
    };
  });
}
