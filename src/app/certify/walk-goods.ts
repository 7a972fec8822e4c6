// The walk's sections on goods (walk.ts): items, imports and purchases, and the opening stock.
import { expect, get, type Json, type Walk } from './walk-session.ts';

/** The two items the walk registers, coded with the run's stamp. */
export interface ItemCodes {
  stamp: string;
  product: string;
  part: string;
}

export async function walkGoods({ session, settings }: Walk, { stamp, product, part }: ItemCodes): Promise<void> {
  const { tpin, branch, recorder } = settings;
  const { data, until, seed, item, needs } = session;
  const deviceReady = () => needs(1);

  await item(7, async (notes) => {
    deviceReady();
    for (const [itemCode, name, price] of [
      [product, 'Certification maize meal 25kg', 185],
      [part, 'Certification maize 1kg', 8],
    ] as const) {
      await data('POST', '/api/v1/items', { body: { itemCode, name, itemClsCd: '50221200', itemTypeCode: '2', defaultPrice: price } });
      await until(`/api/v1/items/${itemCode}`, (i) => get(i, 'registration', 'state') === 'registered', `item ${itemCode}'s registration`);
    }
    notes.push(`items ${product} and ${part} registered (saveItem)`);
  });
  await item(8, async (notes) => {
    needs(7);
    await data('POST', `/api/v1/items/${product}/composition`, { status: 200, body: { components: [{ itemCode: part, quantity: 25 }] } });
    await until(`/api/v1/items/${product}`, (i) => get(i, 'composition', 0, 'state') === 'registered', 'the composition');
    notes.push(`${product} is made of 25 × ${part} (saveItemComposition)`);
  });
  await item(9, async (notes) => {
    needs(7);
    const compared = await data('GET', '/api/v1/item-reconciliation');
    const ours = (compared.items as Json[]).filter((i) => i.itemCode === product || i.itemCode === part);
    expect(
      ours.length === 2 && ours.every((i) => i.state === 'matches'),
      `the VSDC's items differ from the gateway's: ${JSON.stringify(ours)}`,
    );
    notes.push(`GET /api/v1/item-reconciliation read the branch's items back (selectItems): ${JSON.stringify(compared.summary)}`);
  });

  // ---- imports and purchases ----
  await item(10, async (notes) => {
    needs(7);
    if (settings.simulatorControl) await seed(`/devices/${tpin}/${branch}/imports`, { items: [{ itemNm: 'Imported maize 1kg', qty: 10 }] });
    const waiting = await until(
      '/api/v1/import-items?decision=undecided',
      (list) => (list as unknown as Json[]).length > 0,
      'a customs line waiting for an answer (selectImportItems)',
    );
    const line = (waiting as unknown as Json[])[0]!;
    await data('POST', `/api/v1/import-items/${line.id as number}/approve`, { body: { itemCode: part, remark: 'certification' } });
    await until(`/api/v1/import-items/${line.id as number}`, (i) => i.filing === 'accepted', "the approval's filing (updateImportItems)");
    notes.push(
      `customs line ${String(line.declarationNo)} #${String(line.itemSeq)} retrieved (selectImportItems) and approved as ${part} (updateImportItems)`,
    );
  });
  let pulledPurchase: Json | undefined;
  await item(12, async (notes) => {
    deviceReady();
    if (settings.simulatorControl) {
      await seed(`/devices/${tpin}/${branch}/purchases`, {
        purchases: [
          {
            spplrTpin: '2000000004',
            spplrNm: 'Kafue Fisheries Cooperative',
            itemList: [{ itemNm: 'Certification maize 1kg', qty: 10, prc: 8, splyAmt: 80, totAmt: 80 }],
          },
        ],
      });
    }
    const waiting = await until(
      '/api/v1/purchases?status=pending',
      (list) => (list as unknown as Json[]).length > 0,
      "a supplier's sale waiting for an answer (selectTrnsPurchaseSales)",
    );
    pulledPurchase = (waiting as unknown as Json[])[0]!;
    notes.push(
      `purchase ${String(pulledPurchase.id)} from ${String(get(pulledPurchase, 'supplier', 'name'))} retrieved (selectTrnsPurchaseSales)`,
    );
  });
  await item(11, async (notes) => {
    needs(7, 12);
    const id = pulledPurchase!.id as number;
    await data('POST', `/api/v1/purchases/${id}/accept`, { body: { lines: [{ line: 1, itemCode: part }], remark: 'certification' } });
    await until(`/api/v1/purchases/${id}`, (p) => get(p, 'filing', 'state') === 'accepted', "the answer's filing (savePurchase)");
    notes.push(`purchase ${id} accepted and filed (savePurchase, regTyCd A, pchsSttsCd 02); its line raised ${part}'s stock`);
  });
  await item(13, async (notes) => {
    needs(7);
    const captured = await data('POST', '/api/v1/purchases', {
      status: 201,
      body: {
        supplier: { name: 'Soweto market trader (unregistered)' },
        supplierInvoiceNo: `CERT-${stamp}`,
        items: [{ name: 'Certification maize 1kg', classificationCode: '50221200', quantity: 5, price: 7.5, itemCode: part }],
      },
    });
    await until(
      `/api/v1/purchases/${captured.id as number}`,
      (p) => get(p, 'filing', 'state') === 'accepted',
      "the captured purchase's filing (savePurchase)",
    );
    const saved = recorder.calls.filter((c) => c.endpoint === 'savePurchase' && get(c.request, 'regTyCd') === 'M' && c.resultCd === '000');
    expect(saved.length > 0, 'no savePurchase with regTyCd M was answered 000');
    notes.push(
      `purchase ${String(captured.id)} captured by hand from an unregistered supplier, filed with regTyCd M (call #${saved[0]!.seq})`,
    );
  });

  // ---- stock before the sales, so a sale moves stock on hand ----
  let adjustment: Json | undefined;
  await item(25, async (notes) => {
    needs(7);
    adjustment = await data('POST', '/api/v1/stock/adjustments', {
      status: 201,
      body: { movementType: '06', items: [{ itemCode: product, quantity: 100 }], remark: 'Opening stock (certification)' },
    });
    await until(
      `/api/v1/stock/movements/${adjustment.id as number}`,
      (m) => get(m, 'chain', 'state') === 'sent',
      "the adjustment's stock chain",
    );
    notes.push(`opening stock of 100 ${product} (movement type 06) sent as saveStockItems, then saveStockMaster`);
  });
}
