// Every shell example with a curl in docs/*.md and README.md runs as written against a gateway
// started the way a reader starts it (development, built-in simulator, demo provisioning), with
// the variables set from the `export` line that start prints. One gateway serves every doc; each
// doc runs as one bash script (its blocks in order, so a block may use what an earlier one
// captured), in a directory of its own. An HTTP error fails the command unless the block is
// marked `<!-- curl: expect 4xx -->`, when anything but a 4xx does.
// test-database: embedded only (scripts/run-tests.mjs): the docs' routes run on both engines in their own tests.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { TEST_ADMIN_TOKEN } from '../helpers/app.ts';
import { createPostgresDatabaseUrl, engineName } from '../helpers/db.ts';
import { EXPECT_4XX_CURL, FAILING_CURL, printedExports, readerPreamble, runBash, type ReaderVariables } from '../helpers/docs-shell.ts';
import { eventually } from '../helpers/poll.ts';
import { baseEnv, spawnGateway, type SpawnedGateway } from '../helpers/process.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const EXPECT_4XX_MARKER = '<!-- curl: expect 4xx -->';

interface ShellBlock {
  /** `docs/partners.md:36`: where the block's first command is. */
  where: string;
  code: string;
  expect4xx: boolean;
}

/** The ```bash / ```sh blocks of a markdown file that run curl, with the marker before each. */
function curlBlocks(markdown: string, file: string): ShellBlock[] {
  const blocks: ShellBlock[] = [];
  const lines = markdown.split('\n');
  let previous = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^```(bash|sh|shell)\s*$/.test(line)) {
      const start = i + 1;
      let end = start;
      while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
      const code = lines.slice(start, end).join('\n');
      if (code.split('\n').some((l) => /\bcurl\b/.test(l.replace(/(^|\s)#.*$/, ''))))
        blocks.push({ where: `${file}:${start + 1}`, code, expect4xx: previous.trim() === EXPECT_4XX_MARKER });
      i = end;
      previous = '';
      continue;
    }
    if (line.trim() !== '') previous = line;
  }
  return blocks;
}

const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
]
  .map((file) => ({ file, blocks: curlBlocks(readFileSync(join(ROOT, file), 'utf8'), file) }))
  .filter((doc) => doc.blocks.length > 0);

/** One bash script per doc: the reader's variables, then each block (announced on stderr, so a failure names it). */
function scriptOf(blocks: ShellBlock[], variables: ReaderVariables): string {
  const parts = [readerPreamble(variables)];
  for (const block of blocks) {
    parts.push(`echo "▶ ${block.where}" >&2`);
    if (block.expect4xx) parts.push(EXPECT_4XX_CURL, block.code, FAILING_CURL);
    else parts.push(block.code);
  }
  return `${parts.join('\n')}\n`;
}

describe(`the docs' curl examples run against a started gateway (${engineName})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'fg-docs-'));
  let gateway: SpawnedGateway | undefined;
  let database: { url: string; drop(): Promise<void> } | undefined;
  let variables: ReaderVariables;

  before(async () => {
    database = await createPostgresDatabaseUrl();
    gateway = await spawnGateway(
      baseEnv({
        GATEWAY_ENV: 'development',
        BUILTIN_SIMULATOR: '1',
        SIMULATOR_PORT: '0',
        DATA_DIR: join(dir, 'data'),
        DATABASE_URL: database?.url,
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        SALE_WAIT_MS: '5000',
        // docs/purchases.md seeds a purchase at the simulator and waits for the gateway's next pull.
        PURCHASE_PULL_INTERVAL: '2',
      }),
    );
    // What the reader pastes from npm start's output, and the operator token they started it with.
    variables = { ...printedExports(gateway.output()), ADMIN_TOKEN: TEST_ADMIN_TOKEN };
    assert.equal(variables.GATEWAY, gateway.url);
    // Sales need the authority's classification catalogue, which the gateway fetches at start.
    await eventually(
      async () => (await fetch(`${variables.GATEWAY}/docs/item-classes.csv.gz`)).status === 200,
      'the classification catalogue',
    );
  });
  after(async () => {
    await gateway?.kill('SIGTERM');
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the docs hold curl examples that reach the gateway and simulator only through the variables, with no fixed dates', () => {
    const files = DOCS.map((d) => d.file);
    for (const file of [
      'README.md',
      'docs/partners.md',
      'docs/webhooks.md',
      'docs/compat.md',
      'docs/console.md',
      'docs/vsdc.md',
      'docs/items.md',
    ]) {
      assert.ok(files.includes(file), `${file} has curl examples (found: ${files.join(', ')})`);
    }
    for (const { blocks } of DOCS) {
      for (const block of blocks) {
        for (const line of block.code.split('\n')) {
          const command = line.replace(/(^|\s)#.*$/, '');
          if (/^\s*export\s/.test(command)) continue; // the reader's setup line names the defaults
          assert.doesNotMatch(
            command,
            /(127\.0\.0\.1|localhost):(8080|8081|8089)\b/,
            `${block.where}: use $GATEWAY / $SIM, not a fixed address: ${line}`,
          );
          assert.doesNotMatch(
            command,
            /\b20\d\d-[01]\d-[0-3]\d\b/,
            `${block.where}: a fixed date goes stale; use $(date -u +%Y-%m-%dT%H:%M:%SZ): ${line}`,
          );
        }
      }
    }
  });

  for (const { file, blocks } of DOCS) {
    test(`${file}: ${blocks.length} block(s) exit 0 with no HTTP error`, async () => {
      const cwd = join(dir, file.replace(/[/.]/g, '_'));
      mkdirSync(cwd, { recursive: true });
      const result = await runBash(scriptOf(blocks, variables), { cwd, timeoutMs: 120_000 });
      assert.equal(
        result.code,
        0,
        `${file} failed:\n--- stderr ---\n${result.stderr.slice(-4_000)}\n--- stdout ---\n${result.stdout.slice(-4_000)}`,
      );
    });
  }
});
