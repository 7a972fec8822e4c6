// Running the shell examples of the docs as a reader would: the `export` line the development
// start prints, then the commands, in bash.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';

/**
 * The variables a reader sets from what `npm start` prints (and the operator token they start it
 * with). Every example in docs/ reaches the gateway and the simulator through them.
 */
export const READER_VARIABLES = ['GATEWAY', 'PARTNER_KEY', 'TENANT_TOKEN', 'SIM', 'ADMIN_TOKEN', 'KE_TENANT_TOKEN', 'KE_SIM'] as const;
export type ReaderVariables = Partial<Record<(typeof READER_VARIABLES)[number], string>>;

/** The values of the `export GATEWAY=… PARTNER_KEY=…` line the development start prints. */
export function printedExports(output: string): ReaderVariables {
  const line = /^\s*export (GATEWAY=.*)$/m.exec(output)?.[1];
  if (!line) throw new Error(`the development start printed no export line:\n${output}`);
  const values: ReaderVariables = {};
  for (const word of line.trim().split(/\s+/)) {
    const [name, ...rest] = word.split('=');
    if ((READER_VARIABLES as readonly string[]).includes(name!)) values[name as keyof ReaderVariables] = rest.join('=');
  }
  return values;
}

/** `curl` as the examples run under test: an HTTP error status (4xx/5xx) fails the command. */
export const FAILING_CURL = 'curl() { command curl --fail-with-body "$@"; }';

/** `curl` for an example marked to show an error: anything but a 4xx answer fails the command. */
export const EXPECT_4XX_CURL = `curl() {
  local answer status
  answer=$(command curl -w '\\n%{http_code}' "$@") || return
  status=\${answer##*$'\\n'}
  printf '%s\\n' "\${answer%$'\\n'*}"
  [[ $status == 4?? ]] || { echo "expected a 4xx answer, got $status" >&2; return 1; }
}`;

/**
 * Sets the reader's variables, and keeps them: a doc's own `export GATEWAY=http://127.0.0.1:8080
 * PARTNER_KEY=sk_…` is the line the reader pastes their values into, so under test it leaves the
 * values of the running gateway in place (its arguments are still evaluated: a `$(curl …)` runs).
 */
export function readerPreamble(values: ReaderVariables): string {
  const assignments = Object.entries(values).map(([name, value]) => `${name}=${shellQuote(value!)}`);
  return [
    'set -Eeuo pipefail',
    `trap 'echo "✗ exit $? at: $BASH_COMMAND" >&2' ERR`,
    `export ${assignments.join(' ')}`,
    `export() { local a; for a in "$@"; do case "\${a%%=*}" in ${READER_VARIABLES.join('|')}) ;; *) builtin export "$a" ;; esac; done; }`,
    FAILING_CURL,
  ].join('\n');
}

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export interface BashResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `script` with bash in `cwd`, with only PATH and HOME from this process's environment. */
export async function runBash(script: string, options: { cwd: string; timeoutMs?: number }): Promise<BashResult> {
  const proc = spawn('bash', ['-c', script], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d) => (stdout += d));
  proc.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => proc.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const [code] = (await once(proc, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

export type SaleAnswer = { status: number; body: { data: { id: number; status: string; invoiceNo: number } } };

/** Runs what a development start printed, as a reader pastes it: its `export` line, then its curl, in bash. */
export async function runPrintedCurl(output: string, token: 'TENANT_TOKEN' | 'KE_TENANT_TOKEN' = 'TENANT_TOKEN'): Promise<SaleAnswer> {
  const exportLine = /^\s*(export GATEWAY=.*)$/m.exec(output)?.[1];
  const curl = new RegExp(
    `^\\s*(curl -sS -X POST \\$GATEWAY/api/v1/sales[^\\n]*\\n[^\\n]*Bearer \\$${token}"[^\\n]*\\n[^\\n]*)$`,
    'm',
  ).exec(output)?.[1];
  assert.ok(exportLine && curl, `an export line and a complete curl are printed:\n${output}`);
  const result = await runBash(`set -euo pipefail\n${exportLine}\n${curl} -w '\\n%{http_code}'\n`, { cwd: tmpdir() });
  assert.equal(result.code, 0, result.stderr);
  const cut = result.stdout.lastIndexOf('\n');
  return { status: Number(result.stdout.slice(cut + 1)), body: JSON.parse(result.stdout.slice(0, cut)) as SaleAnswer['body'] };
}
