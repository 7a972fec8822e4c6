// Process state lives on the application context: built in one explicit step, released with it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { closeContext, createContext } from '../../src/domain/kernel/context.ts';
import { classificationCatalogue } from '../../src/domain/kernel/catalogue/service.ts';
import { provideModuleMembers } from '../../src/app/modules.ts';
import { saleSignals } from '../../src/domain/fiscal/signals/sale-signals.ts';
import { testConfig } from '../helpers/app.ts';
import { createTestDatabase, engineName } from '../helpers/db.ts';

describe(`the application context (${engineName})`, () => {
  test('module members exist once provideModuleMembers built them, one set per context, until closeContext', async () => {
    const testDb = await createTestDatabase();
    const ctx = createContext(testConfig(), testDb.database);
    const other = createContext(testConfig(), testDb.database);
    try {
      assert.throws(() => saleSignals(ctx), /sales\.signals was not provided/, 'nothing is built by a first use');
      provideModuleMembers(ctx);
      const signals = saleSignals(ctx);
      const catalogue = classificationCatalogue(ctx);
      provideModuleMembers(ctx);
      assert.equal(saleSignals(ctx), signals, 'providing again keeps what is there');
      assert.equal(classificationCatalogue(ctx), catalogue);
      provideModuleMembers(other);
      assert.notEqual(saleSignals(other), signals, 'each context has its own');

      let woken = 0;
      signals.onDocumentQueued(() => woken++);
      await closeContext(ctx);
      signals.documentQueued(1);
      assert.equal(woken, 0, 'closing the context closed its signals');
      assert.throws(() => saleSignals(ctx), /not provided/);
    } finally {
      await closeContext(other);
      await testDb.close();
    }
  });
});
