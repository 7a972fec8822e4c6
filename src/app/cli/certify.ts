// `fiscal-gateway certify`: walks the authority's developer self-checklist through a gateway of
// its own (docs/certification.md). It never touches the operator's data: it starts a gateway on a
// scratch embedded database in a temporary directory (DATABASE_URL, DATA_DIR and the rest of the
// environment are ignored), provisions a merchant whose device files to the given VSDC — or to a
// simulator of its own — through a recording relay, walks every item through the gateway's HTTP
// API and workers, and writes report.md and evidence.json.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/observability/log.ts';
import { createPartner } from '../../domain/partner/provisioning/partners-service.ts';
import { INTERFACE_VERSION } from '../app.ts';
import { startGateway } from '../server.ts';
import { startRecorder } from '../certify/recorder.ts';
import { writeReport, type RunFacts } from '../certify/report.ts';
import { walkChecklist } from '../certify/walk.ts';
import { EXIT, UsageError, print } from './output.ts';

const USAGE =
  'certify [--authority zra] [--vsdc URL --tpin TPIN] [--branch BHF] [--serial SERIAL] [--customer-tpin TPIN] [--out DIR] [--timeout SECONDS] [--json]';

/** The simulator's taxpayers (packages/simulator/src/taxpayers.ts): the merchant and its customer. */
const SIMULATED_TPIN = '2000000001';
const SIMULATED_CUSTOMER_TPIN = '2000000002';

interface CertifyOptions {
  vsdc: string | undefined;
  tpin: string;
  branch: string;
  serial: string;
  customerTpin: string;
  out: string;
  timeoutMs: number;
}

export function parseCertifyArgs(args: string[]): CertifyOptions {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      authority: { type: 'string' },
      vsdc: { type: 'string' },
      tpin: { type: 'string' },
      branch: { type: 'string' },
      serial: { type: 'string' },
      'customer-tpin': { type: 'string' },
      out: { type: 'string' },
      timeout: { type: 'string' },
    },
  });
  // The walk is ZRA's checklist; KRA publishes its own certification, which this walk does not cover.
  if (values.authority !== undefined && values.authority !== 'zra') {
    throw new UsageError(
      values.authority === 'kra' || KRA_PIN.test(values.tpin ?? '') ? KRA_NOT_COVERED : `--authority takes zra, got "${values.authority}"`,
    );
  }
  if (values.tpin !== undefined && KRA_PIN.test(values.tpin)) throw new UsageError(KRA_NOT_COVERED);
  if (values.vsdc !== undefined && !/^https?:\/\/[^/]/.test(values.vsdc))
    throw new UsageError(`--vsdc takes the VSDC's base URL, such as http://10.0.0.5:8080/zrasandboxvsdc, got "${values.vsdc}"`);
  if (values.vsdc !== undefined && values.tpin === undefined)
    throw new UsageError(`--vsdc needs --tpin: the taxpayer the VSDC is set up for; usage: fiscal-gateway ${USAGE}`);
  for (const [name, value] of [
    ['tpin', values.tpin],
    ['customer-tpin', values['customer-tpin']],
  ] as const) {
    if (value !== undefined && !/^\d{10}$/.test(value)) throw new UsageError(`--${name} takes a 10-digit TPIN, got "${value}"`);
  }
  if (values.branch !== undefined && !/^\d{3}$/.test(values.branch))
    throw new UsageError(`--branch takes a 3-digit branch id such as 000, got "${values.branch}"`);
  if (values.serial !== undefined && !/^[\w.-]{1,50}$/.test(values.serial))
    throw new UsageError(`--serial takes the device serial the VSDC was set up with (letters, digits, . _ -), got "${values.serial}"`);
  const timeout = values.timeout === undefined ? 60 : Number(values.timeout);
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 3600)
    throw new UsageError(`--timeout takes whole seconds from 1 to 3600, got "${values.timeout}"`);
  const tpin = values.tpin ?? SIMULATED_TPIN;
  return {
    vsdc: values.vsdc,
    tpin,
    branch: values.branch ?? '000',
    serial: values.serial ?? `CERTIFY-${Date.now().toString(36).toUpperCase()}`,
    customerTpin: values['customer-tpin'] ?? (values.vsdc === undefined ? SIMULATED_CUSTOMER_TPIN : tpin),
    out: values.out ?? 'certification',
    timeoutMs: timeout * 1000,
  };
}

const KRA_PIN = /^[A-Z][0-9]{9}[A-Z]$/;
const KRA_NOT_COVERED =
  "certify walks ZRA's developer self-checklist (Smart Invoice VSDC) only. It does not cover KRA eTIMS: not OSCU's initialisation with its cmcKey (selectInitOsdcInfo), sales and credit notes (saveTrnsSalesOsdc), the lookup of a filed sale (selectInvoiceDetails), the code tables, item classes, customers, branches, notices, items, imports, purchases or stock, nor any VSCU path. The gateway's KRA adapter is tested against the simulator's kra-oscu and kra-vscu profiles (test/kenya/, test/authorities/kra/): docs/kenya.md.";

/** Runs the checklist; answers the exit code (0 only when every endpoint and mandatory item passed). */
export async function certifyCommand(args: string[], json: boolean): Promise<number> {
  const options = parseCertifyArgs(args);
  const out = resolve(options.out);
  const scratch = mkdtempSync(join(tmpdir(), 'fg-certify-'));
  const say = (text: string) => {
    if (!json) process.stderr.write(`${text}\n`);
  };
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    let vsdcUrl = options.vsdc;
    let simulatorControl: string | undefined;
    if (vsdcUrl === undefined) {
      const { startSimulator } = await import('@fiscal-gateway/simulator');
      const simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
      cleanups.push(() => simulator.close());
      vsdcUrl = simulator.url;
      simulatorControl = `${simulator.origin}/_sim`;
    }
    const config = loadConfig({
      GATEWAY_ENV: 'development',
      DATA_DIR: join(scratch, 'data'),
      HOST: '127.0.0.1',
      PORT: '0',
      BUILTIN_SIMULATOR: '0',
      SECRET_KEY: randomBytes(32).toString('hex'),
      ADMIN_TOKEN: randomBytes(24).toString('hex'),
      LOG_LEVEL: 'info',
      VSDC_TIMEOUT_MS: String(Math.min(options.timeoutMs, 30_000)),
      SALE_WAIT_MS: '0',
      // The pulled feeds the checklist reads: at once, not hourly.
      IMPORT_PULL_INTERVAL: '1',
      PURCHASE_PULL_INTERVAL: '1',
      STOCK_PULL_INTERVAL: '1',
    });
    const recorder = await startRecorder(vsdcUrl, config.vsdcTimeoutMs);
    cleanups.unshift(() => recorder.close());
    const logFile = join(out, 'gateway.log');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(out, { recursive: true });
    const gateway = await startGateway(config, {
      api: true,
      workers: true,
      context: { log: createLogger('info', pino.destination({ dest: logFile, sync: true })) },
    });
    cleanups.unshift(() => gateway.stop());
    say(
      `certify: a scratch gateway on ${gateway.url} (log: ${logFile}), filing to ${options.vsdc ?? `its own simulator (${vsdcUrl})`} through a recording relay (${recorder.url})`,
    );

    const partner = await createPartner(
      gateway.ctx.db,
      gateway.ctx.secretBox,
      { type: 'cli' },
      { name: 'Certification partner', test: true },
    );
    const startedAt = new Date().toISOString();
    const outcome = await walkChecklist({
      gatewayUrl: gateway.url!,
      partnerKey: partner.key.secret,
      adminToken: config.adminToken!,
      recorder,
      tpin: options.tpin,
      branch: options.branch,
      serial: options.serial,
      simulatorControl,
      customerTpin: options.customerTpin,
      timeoutMs: options.timeoutMs,
    });
    const facts: RunFacts = {
      startedAt,
      finishedAt: new Date().toISOString(),
      gatewayVersion: INTERFACE_VERSION,
      vsdcUrl,
      simulator: options.vsdc === undefined,
      tpin: options.tpin,
      branch: options.branch,
      serial: options.serial,
    };
    const { summary, endpoints } = writeReport(out, facts, outcome, recorder.calls);
    if (json) print(true, { endpoints: summary.endpoints, items: summary.items, ok: summary.ok, report: join(out, 'report.md') }, '');
    else {
      for (const e of endpoints) say(`  ${e.ok ? '✓' : '✗'} ${e.path}`);
      for (const r of outcome.results) {
        const item = summary.items.find((i) => i.no === r.no)!;
        say(
          `  ${r.ok ? '✓' : '✗'} ${String(r.no).padStart(2)}. ${item.title}${item.mandatory ? '' : ' (optional)'}${r.ok ? '' : ` — ${r.why}`}`,
        );
      }
      print(false, null, `${summary.ok ? 'PASSED' : 'NOT PASSED'}: ${join(out, 'report.md')} and evidence.json`);
    }
    return summary.ok ? EXIT.ok : EXIT.notCertified;
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
    rmSync(scratch, { recursive: true, force: true });
  }
}
