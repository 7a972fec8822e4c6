// What a certification run leaves behind: `report.md` (the checklist's two sections with ✓/✗, the
// evidence and, for a ✗, why), `evidence.json` (every VSDC request and answer, with times) and the
// summary `certify` prints.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHECKLIST_ENDPOINTS, CHECKLIST_ITEMS, endpointsBeyondTheForm, type ChecklistEndpoint } from './checklist.ts';
import type { RecordedCall } from './recorder.ts';
import type { WalkOutcome } from './walk.ts';
import type { ItemResult } from './walk-session.ts';

export interface RunFacts {
  startedAt: string;
  finishedAt: string;
  gatewayVersion: string;
  vsdcUrl: string;
  /** True when certify ran its own simulator (no --vsdc). */
  simulator: boolean;
  tpin: string;
  branch: string;
  serial: string;
}

export interface EndpointResult {
  endpoint: string;
  path: string;
  title: string;
  ok: boolean;
  calls: number;
  /** The result codes seen, with how often. */
  codes: Record<string, number>;
  /** The first answered call. */
  evidence: number | null;
}

export interface Summary {
  ok: boolean;
  endpoints: Array<{ path: string; ok: boolean }>;
  items: Array<{ no: number; title: string; mandatory: boolean; ok: boolean }>;
}

/** Each of `endpoints` with the run's calls to it for the run's taxpayer and branch. */
function endpointResults(
  calls: readonly RecordedCall[],
  facts: RunFacts,
  endpoints: readonly ChecklistEndpoint[] = CHECKLIST_ENDPOINTS,
): EndpointResult[] {
  return endpoints.map((e) => {
    const ours = calls.filter((c) => c.endpoint === e.endpoint && c.tpin === facts.tpin && c.bhfId === facts.branch);
    const answered = ours.find((c) => c.resultCd === '000' || (e.select && c.resultCd === '001'));
    const codes: Record<string, number> = {};
    for (const c of ours) {
      const code = c.resultCd ?? (c.error ? 'unreachable' : `HTTP ${c.status}`);
      codes[code] = (codes[code] ?? 0) + 1;
    }
    return {
      endpoint: e.endpoint,
      path: e.path,
      title: e.title,
      ok: answered !== undefined,
      calls: ours.length,
      codes,
      evidence: answered?.seq ?? null,
    };
  });
}

function summarise(endpoints: readonly EndpointResult[], results: readonly ItemResult[]): Summary {
  const items = CHECKLIST_ITEMS.map((i) => ({
    no: i.no,
    title: i.title,
    mandatory: i.mandatory,
    ok: results.find((r) => r.no === i.no)?.ok === true,
  }));
  return {
    ok: items.every((i) => i.ok || !i.mandatory) && endpoints.every((e) => e.ok),
    endpoints: endpoints.map((e) => ({ path: e.path, ok: e.ok })),
    items,
  };
}

const mark = (ok: boolean) => (ok ? '✓' : '✗');
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
const codesText = (codes: Record<string, number>) =>
  Object.entries(codes)
    .map(([code, n]) => `${code} ×${n}`)
    .join(', ') || 'not called';

function callsText(seqs: readonly number[]): string {
  if (seqs.length === 0) return '';
  const shown = seqs
    .slice(0, 8)
    .map((s) => `#${s}`)
    .join(', ');
  return seqs.length > 8 ? `${shown} … (${seqs.length} calls)` : shown;
}

const endpointRow = (e: EndpointResult) =>
  `| ${mark(e.ok)} | ${e.title} | \`${e.path}\` | ${codesText(e.codes)} | ${e.evidence === null ? 'no answered call' : `#${e.evidence}`} |`;

function reportText(
  facts: RunFacts,
  outcome: WalkOutcome,
  endpoints: readonly EndpointResult[],
  beyond: readonly EndpointResult[],
  summary: Summary,
): string {
  const items = outcome.results;
  const mandatory = summary.items.filter((i) => i.mandatory);
  const lines = [
    '# VSDC developer self-checklist — certification run',
    '',
    `**Result: ${summary.ok ? 'PASSED' : 'NOT PASSED'}** — ${endpoints.filter((e) => e.ok).length} of ${endpoints.length} endpoints answered; ` +
      `${mandatory.filter((i) => i.ok).length} of ${mandatory.length} mandatory items and ${summary.items.filter((i) => !i.mandatory && i.ok).length} of ${summary.items.filter((i) => !i.mandatory).length} optional items passed.`,
    '',
    '| | |',
    '|---|---|',
    `| Run | ${facts.startedAt} → ${facts.finishedAt} |`,
    `| Integration | fiscal-gateway ${facts.gatewayVersion} (every item done through its HTTP API and workers) |`,
    `| VSDC | ${facts.simulator ? `the gateway's built-in simulator (${facts.vsdcUrl}) — a rehearsal, not evidence for the authority` : facts.vsdcUrl} |`,
    `| Taxpayer (TPIN) | ${facts.tpin} |`,
    `| Branch | ${facts.branch} |`,
    `| Device serial | ${facts.serial} |`,
    `| SDC id / MRC | ${outcome.device.sdcId ?? '—'} / ${outcome.device.mrcNo ?? '—'} |`,
    '',
    'Evidence: `#N` is call N in `evidence.json` (each VSDC request and answer, with its times).',
    '',
    '## Section 1 — taxpayer and system',
    '',
    '| | |',
    '|---|---|',
    `| Supplier name | (the taxpayer's registered name${outcome.device.taxpayerName ? `; the VSDC says: ${outcome.device.taxpayerName}` : ''}) |`,
    `| TPIN | ${facts.tpin} |`,
    '| Contact | (to fill in) |',
    `| Accounting package, version | fiscal-gateway, interface ${facts.gatewayVersion} |`,
    '| Licence number | (to fill in) |',
    '',
    '## Section 2 — endpoints',
    '',
    '| | Endpoint | Path | Calls (result codes) | Evidence |',
    '|---|---|---|---|---|',
    ...endpoints.map(endpointRow),
    '',
    ...(beyond.length === 0
      ? []
      : [
          `Beyond the form's ${endpoints.length}, the run called these endpoints, also through the gateway's VSDC client:`,
          '',
          '| | Endpoint | Path | Calls (result codes) | Evidence |',
          '|---|---|---|---|---|',
          ...beyond.map(endpointRow),
          '',
        ]),
    "Each endpoint is called by the gateway's own VSDC client: URL and method (POST, JSON), the `tpin`/`bhfId` parameters, the body as the protocol gives it; " +
      "an answer other than `000` (or `001`, nothing found, for a select) is handled as the gateway documents it (retried while unreachable, shown as failed with the authority's code and text otherwise).",
    '',
    '## Section 3 — functional items',
    '',
    '| No | | Item | Mandatory | Evidence |',
    '|---|---|---|---|---|',
    ...CHECKLIST_ITEMS.map((i) => {
      const r = items.find((x) => x.no === i.no)!;
      const evidence = r.ok ? [...r.notes, callsText(r.calls)].filter(Boolean).join('; ') : `**${r.why ?? 'failed'}**`;
      return `| ${i.no} | ${mark(r.ok)} | ${cell(i.title)} | ${i.mandatory ? 'yes' : 'optional'} | ${cell(evidence)} |`;
    }),
    '',
  ];
  const failed = items.filter((r) => !r.ok);
  if (failed.length > 0) {
    lines.push('## What failed, and why', '');
    for (const r of failed) {
      const title = CHECKLIST_ITEMS.find((i) => i.no === r.no)!.title;
      lines.push(`- **${r.no}. ${title}**: ${r.why ?? 'failed'}${r.calls.length ? ` (calls ${callsText(r.calls)})` : ''}`);
    }
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

/** Writes `report.md` and `evidence.json` into `dir` (created); answers the summary. */
export function writeReport(
  dir: string,
  facts: RunFacts,
  outcome: WalkOutcome,
  calls: readonly RecordedCall[],
): { summary: Summary; endpoints: EndpointResult[] } {
  // A call still in flight when the walk ended (a background pull the stop cuts) proves nothing
  // either way: the endpoints are judged by the calls that ended; evidence.json keeps every call.
  const ended = calls.filter((c) => c.answeredAt !== null || c.error !== null);
  const endpoints = endpointResults(ended, facts);
  const ours = ended.filter((c) => c.tpin === facts.tpin && c.bhfId === facts.branch);
  const beyond = endpointResults(ended, facts, endpointsBeyondTheForm(ours.map((c) => c.endpoint)));
  const summary = summarise(endpoints, outcome.results);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'report.md'), reportText(facts, outcome, endpoints, beyond, summary));
  writeFileSync(
    join(dir, 'evidence.json'),
    `${JSON.stringify({ run: { ...facts, ...outcome.device }, summary, endpoints, endpointsBeyondTheForm: beyond, items: outcome.results, calls }, null, 2)}\n`,
  );
  return { summary, endpoints };
}
