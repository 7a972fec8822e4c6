// A national fleet written straight into a PostgreSQL database (issue 36, item 3): partners,
// merchants, branches and what their rows need, in set-based INSERT … SELECT statements over
// generate_series (the server builds the rows; nothing crosses the wire but the statements), so
// 100,000 merchants and 200,000 branches take a minute or two, not an hour.
//
// The merchants a benchmark calls are made through the gateway's own API first (bench/lib/seed.ts:
// real tokens minted and hashed by the gateway); this fills the database around them. Filler
// merchants get tenant tokens whose hashes have the real format (sha256 hex of a secret) but
// whose secrets nobody keeps. Every filler branch points at a VSDC address that refuses
// connections at once (port 9 of the loopback), so a worker that did call one would fail fast.
//
// What the fleet looks like (the shape is the same at any size; `tenants` scales it):
//   partners   `partners` of them; the bench partner holds 30 % of the merchants, three more
//              20 %, 15 % and 10 %, the rest share what is left evenly;
//   merchants  one tenant token each (the credential lookup's index holds them all), a usage row;
//   branches   2 per merchant on average (5 in 10 have one, 3 in 10 two, 1 in 10 three, 1 in 10
//              six); 19 in 20 initialised; each initialised branch has its rows in the four
//              branch pull tables (pulled recently: the next pull an hour or more away) and its
//              merchant its two authority pull rows;
//   documents  3 in 10 merchants hold 5 uploaded sales on their first branch (with a stock row);
//              1 branch in 50 has 3 pending documents behind a VSDC that is down (its filing
//              queue in backoff for a day, its backlog alarm open); 1 branch in 100
//              (`failedEvery`) has 2 failed documents. Every document has one line.
import pg from 'pg';
import { SecretBox } from '../../src/credentials/secret-box.ts';
import { hashSecret, last4, mintSecret } from '../../src/credentials/secret-format.ts';
import { PREFIXES } from '../../src/credentials/secret-prefixes.ts';

export interface ScaleSeedOptions {
  /** Filler merchants to add. */
  tenants: number;
  /** Partners in all, the bench partner included (at least 1). */
  partners: number;
  /** The partner made through the API: it takes the largest share. */
  benchPartnerId: number;
  /** First TPIN of the filler merchants (10 digits). */
  tpinBase: number;
  /** The gateway's SECRET_KEY: the filler partners' keys are sealed with it, as the gateway seals them. */
  secretKey: string;
  /**
   * One filler branch in this many has 2 failed documents (100). A small database takes 1, so that
   * its documents views show a full page too, as the big one's do: a figure compares like with like.
   */
  failedEvery?: number;
}

export interface ScaleSeedResult {
  seconds: number;
  rows: Record<string, number>;
}

/** How many filler merchants each partner gets: [partnerIndex, count], index 0 being the bench partner. */
export function partnerShares(tenants: number, partners: number): number[] {
  const lead = [0.3, 0.2, 0.15, 0.1].slice(0, partners);
  const shares = lead.map((f) => Math.floor(tenants * f));
  const rest = partners - lead.length;
  let left = tenants - shares.reduce((a, b) => a + b, 0);
  if (rest === 0) shares[0]! += left;
  for (let k = 0; k < rest; k++) {
    const n = Math.floor(left / (rest - k));
    shares.push(n);
    left -= n;
  }
  return shares;
}

// Branches per merchant from its id: 5 in 10 one, 3 in 10 two, 1 in 10 three, 1 in 10 six (2 on average).
const BRANCHES_OF = `(case when t.id % 10 < 5 then 1 when t.id % 10 < 8 then 2 when t.id % 10 = 8 then 3 else 6 end)`;
const DEAD_VSDC = 'http://127.0.0.1:9/';

export async function seedScale(databaseUrl: string, options: ScaleSeedOptions, log: (line: string) => void): Promise<ScaleSeedResult> {
  const began = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const run = async (label: string, statement: string, params: unknown[] = []): Promise<number> => {
    const t0 = performance.now();
    const result = await client.query(statement, params);
    log(`  ${label}: ${result.rowCount ?? 0} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return result.rowCount ?? 0;
  };
  const rows: Record<string, number> = {};
  const add = (table: string, n: number) => (rows[table] = (rows[table] ?? 0) + n);
  try {
    await client.query('set synchronous_commit = off');
    await client.query('begin');
    const { rows: marks } = await client.query<{ tenant: number; device: number; sale: string }>(
      `select coalesce((select max(id) from tenants), 0) as tenant, coalesce((select max(id) from devices), 0) as device, coalesce((select max(id) from sales), 0)::text as sale`,
    );
    const before = marks[0]!;
    const { rows: abilityRows } = await client.query<{ abilities: string[] }>(`select abilities from tenant_tokens order by id limit 1`);
    const abilities = abilityRows[0]?.abilities ?? ['sales:write', 'sales:read'];

    // Partners: the bench partner plus `partners - 1` more, each with a live key.
    const partnerIds = [options.benchPartnerId];
    if (options.partners > 1) {
      const { rows: made } = await client.query<{ id: number }>(
        `insert into partners (name) select 'Scale partner ' || g from generate_series(2, $1::int) g returning id`,
        [options.partners],
      );
      partnerIds.push(...made.map((r) => r.id));
      add('partners', made.length);
      // Minted, hashed and sealed as the gateway does (partner-keys-service.ts): a gateway refuses
      // to start on a database whose newest sealed secrets do not open with its SECRET_KEY.
      const box = new SecretBox(options.secretKey);
      for (const partnerId of partnerIds.slice(1)) {
        const secret = mintSecret(PREFIXES.partnerLive);
        const { rows: key } = await client.query<{ id: number }>(
          `insert into partner_keys (partner_id, name, mode, scopes, secret_hash, secret_ciphertext, last4)
           select $1, 'live', 'live', scopes, $2, 'pending', $3 from partner_keys where partner_id = $4 order by id limit 1 returning id`,
          [partnerId, hashSecret(secret), last4(secret), options.benchPartnerId],
        );
        if (key[0])
          await client.query(`update partner_keys set secret_ciphertext = $1 where id = $2`, [
            box.seal(secret, `partner_key:${key[0].id}:partner:${partnerId}`),
            key[0].id,
          ]);
        add('partner_keys', key.length);
      }
    }

    // Merchants, partner by partner; `n` numbers them across the fleet (their TPINs).
    const shares = partnerShares(options.tenants, options.partners);
    let n = 0;
    for (let k = 0; k < shares.length; k++) {
      const count = shares[k]!;
      if (count === 0) continue;
      add(
        'tenants',
        await client
          .query(
            `insert into tenants (partner_id, name, tpin, plan, origin, created_at, updated_at)
             select $1::int, 'Scale merchant ' || g, ($2::bigint + g)::text, (array['free_trial','starter','growth','enterprise'])[1 + g % 4], 'partner',
               now() - make_interval(days => g % 700), now() - make_interval(days => g % 30)
             from generate_series($3::int, $4::int) g`,
            [partnerIds[k], options.tpinBase, n, n + count - 1],
          )
          .then((r) => r.rowCount ?? 0),
      );
      n += count;
    }
    log(
      `  tenants: ${rows.tenants ?? 0} under ${shares.length} partners (${shares.slice(0, 5).join(', ')}${shares.length > 5 ? ', …' : ''})`,
    );

    add(
      'tenant_tokens',
      await run(
        'tenant tokens',
        `insert into tenant_tokens (tenant_id, name, abilities, token_hash, last4, created_at, last_used_at)
         select t.id, 'pos', $2::text[], encode(sha256(convert_to('scale-token-' || t.id, 'UTF8')), 'hex'), lpad((t.id % 10000)::text, 4, '0'), t.created_at, now() - make_interval(mins => t.id % 5000)
         from tenants t where t.id > $1`,
        [before.tenant, abilities],
      ),
    );
    add(
      'tenant_usage',
      await run(
        'usage',
        `insert into tenant_usage (tenant_id, month, documents) select t.id, to_char(now(), 'YYYY-MM'), t.id % 500 from tenants t where t.id > $1`,
        [before.tenant],
      ),
    );
    add(
      'devices',
      await run(
        'branches',
        `insert into devices (tenant_id, branch, device_serial, vsdc_base_url, initialized, sdc_id, mrc_no, taxpayer_name, branch_name,
           initialized_at, next_invoice_no, created_at, updated_at)
         select t.id, lpad((b - 1)::text, 3, '0'), 'SCALE-' || t.id || '-' || b, $2, t.id % 20 <> 0,
           case when t.id % 20 <> 0 then 'SDC' || lpad(t.id::text, 9, '0') end, case when t.id % 20 <> 0 then 'WIS' || lpad((t.id * 10 + b)::text, 8, '0') end,
           case when t.id % 20 <> 0 then t.name end, case when t.id % 20 <> 0 then 'Branch ' || b end,
           case when t.id % 20 <> 0 then t.created_at + interval '1 hour' end, 1000, t.created_at, t.created_at
         from tenants t cross join lateral generate_series(1, ${BRANCHES_OF}) b
         where t.id > $1`,
        [before.tenant, DEAD_VSDC],
      ),
    );

    const saleColumns = `tenant_id, device_id, tpin, branch, type, invoice_no, status, reference, client_invoice_no, customer_name, payment_method,
      tax_inclusive, occurred_at, net, vat, total, result_code, last_error, receipt_no, internal_data, receipt_signature, sdc_id, mrc_no, qr_code_url,
      published_at, created_at, updated_at`;
    add(
      'sales',
      await run(
        'uploaded documents',
        `insert into sales (${saleColumns})
         select d.tenant_id, d.id, t.tpin, d.branch, 'sale', g, 'uploaded', 'scale-' || d.id || '-' || g, 'TILL-' || g, 'Walk-in customer', '01',
           true, now() - make_interval(days => 6 - g, mins => d.id % 600), 318.97, 51.03, 370, '000', null, g, 'I6H7EAWI6NF3TXRECQLK2N5LBY', 'EU24KDP6C5E5MVUF',
           d.sdc_id, d.mrc_no, 'https://example.invalid/qr/' || d.id || '/' || g,
           now() - make_interval(days => 6 - g, mins => d.id % 600), now() - make_interval(days => 6 - g, mins => d.id % 600), now() - make_interval(days => 6 - g, mins => d.id % 600)
         from devices d join tenants t on t.id = d.tenant_id cross join generate_series(1, 5) g
         where d.id > $1 and d.branch = '000' and d.initialized and t.id % 10 < 3`,
        [before.device],
      ),
    );
    add(
      'sales',
      await run(
        'pending documents',
        `insert into sales (${saleColumns})
         select d.tenant_id, d.id, t.tpin, d.branch, 'sale', 100 + g, 'pending', 'scale-' || d.id || '-p' || g, 'TILL-P' || g, 'Walk-in customer', '01',
           true, now() - make_interval(hours => 4 - g), 318.97, 51.03, 370, null, 'VSDC unreachable: connect ECONNREFUSED', null, null, null, null, null, null,
           null, now() - make_interval(hours => 4 - g), now() - make_interval(hours => 4 - g)
         from devices d join tenants t on t.id = d.tenant_id cross join generate_series(1, 3) g
         where d.id > $1 and d.initialized and d.id % 50 = 7`,
        [before.device],
      ),
    );
    add(
      'sales',
      await run(
        'failed documents',
        `insert into sales (${saleColumns})
         select d.tenant_id, d.id, t.tpin, d.branch, 'sale', 200 + g, 'failed', 'scale-' || d.id || '-f' || g, 'TILL-F' || g, 'Walk-in customer', '01',
           true, now() - make_interval(days => 2, hours => g), 318.97, 51.03, 370, '837', 'Invalid item classification code', null, null, null, null, null, null,
           null, now() - make_interval(days => 2, hours => g), now() - make_interval(days => 2, hours => g)
         from devices d join tenants t on t.id = d.tenant_id cross join generate_series(1, 2) g
         where d.id > $1 and d.initialized and d.id % $2::int = 3 % $2::int`,
        [before.device, options.failedEvery ?? 100],
      ),
    );
    add(
      'sale_lines',
      await run(
        'document lines',
        `insert into sale_lines (sale_id, line, name, classification_code, quantity, price, vat_category, vat_rate, amount, net, vat, total)
         select s.id, 1, 'Roller mealie meal 25kg', '50221200', 2, 185, 'A', 16, 370, 318.97, 51.03, 370 from sales s where s.id > $1::bigint`,
        [before.sale],
      ),
    );
    // A filing queue row for every branch that has filed (idle: nothing pending) and for every
    // branch with a backlog (in backoff for a day: its VSDC is down).
    add(
      'filing_queues',
      await run(
        'filing queues',
        `insert into filing_queues (device_id, next_attempt_at, retry_delay_ms, last_error, updated_at, probed_at)
         select d.id,
           case when p.device_id is not null then now() + interval '1 day' + make_interval(secs => d.id % 3600) else now() - interval '1 hour' end,
           case when p.device_id is not null then 3600000 end,
           case when p.device_id is not null then 'VSDC unreachable: connect ECONNREFUSED' end,
           now() - interval '1 hour', case when p.device_id is not null then now() - interval '5 minutes' end
         from devices d left join (select distinct device_id from sales where status = 'pending' and id > $2::bigint) p on p.device_id = d.id
         where d.id > $1 and (p.device_id is not null or exists (select 1 from sales s where s.device_id = d.id and s.id > $2::bigint))`,
        [before.device, before.sale],
      ),
    );
    add(
      'backlog_alarms',
      await run(
        'backlog alarms',
        `insert into backlog_alarms (device_id, threshold_sec, episode_started_at, watermark_sale_id, fired_at)
         select s.device_id, 900, min(s.created_at), max(s.id), min(s.created_at) + interval '15 minutes'
         from sales s where s.id > $1::bigint and s.status = 'pending' group by s.device_id`,
        [before.sale],
      ),
    );
    add(
      'stock_branches',
      await run(
        'stock branches',
        `insert into stock_branches (device_id, tenant_id, last_sar_no, booked_invoice_no, next_attempt_at, updated_at)
         select d.id, d.tenant_id, 5, 5, now() - interval '1 hour', now() - interval '1 hour'
         from devices d where d.id > $1 and exists (select 1 from sales s where s.device_id = d.id and s.status = 'uploaded' and s.id > $2::bigint)`,
        [before.device, before.sale],
      ),
    );
    for (const table of ['import_pulls', 'purchase_pulls', 'principal_pulls', 'stock_ledger_pulls']) {
      add(
        table,
        await run(
          table,
          `insert into ${table} (device_id, last_req_dt, next_pull_at, last_pulled_at, updated_at)
           select d.id, to_char(now() - interval '1 hour', 'YYYYMMDDHH24MISS'), now() + interval '1 hour' + make_interval(secs => d.id % 3600), now() - interval '1 hour', now() - interval '1 hour'
           from devices d where d.id > $1 and d.initialized`,
          [before.device],
        ),
      );
    }
    add(
      'authority_pulls',
      await run(
        'authority pulls',
        `insert into authority_pulls (tenant_id, feed, last_req_dt, next_pull_at, last_pulled_at, updated_at)
         select t.id, f.feed, to_char(now() - interval '1 hour', 'YYYYMMDDHH24MISS'), now() + interval '1 hour' + make_interval(secs => t.id % 3600), now() - interval '1 hour', now() - interval '1 hour'
         from tenants t cross join (values ('notices'), ('branches')) f(feed)
         where t.id > $1 and t.id % 20 <> 0`,
        [before.tenant],
      ),
    );
    await client.query('commit');
    await run('analyze', 'analyze');
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
  return { seconds: Math.round((performance.now() - began) / 100) / 10, rows };
}
