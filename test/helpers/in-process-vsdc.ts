// One device of the VSDC simulator driven in-process through its real endpoint handler (no
// sockets), so property tests can file thousands of documents against its own checks.
import assert from 'node:assert/strict';
import { handleEndpoint, SimulatorState, type EnvelopeReply } from '@fiscal-gateway/simulator';
import { buildZraSaleBody, type ZraSaleDocument } from '../../src/authorities/zra-vsdc/sales-body.ts';

export type InProcessDocument = Omit<
  ZraSaleDocument,
  'tpin' | 'bhfId' | 'invoiceNo' | 'customer' | 'paymentMethod' | 'occurredAt' | 'currency'
>;

export interface InProcessVsdc {
  sdcId: string;
  /** Builds the document's saveSales body as the filer would and files it; the reply as the wire carries it. */
  save(doc: InProcessDocument): EnvelopeReply;
}

export function inProcessVsdc(): InProcessVsdc {
  const state = new SimulatorState();
  const tpin = '2000000001';
  const device = state.device(tpin, '000');
  const file = (endpoint: 'selectInitInfo' | 'saveSales', body: unknown): EnvelopeReply => {
    // Through JSON, as the wire carries it.
    const reply = handleEndpoint(endpoint, JSON.parse(JSON.stringify(body)) as Record<string, unknown>, { state, device, now: new Date() });
    assert.equal(reply.kind, 'envelope');
    return reply as EnvelopeReply;
  };
  assert.equal(file('selectInitInfo', { tpin, bhfId: '000', dvcSrlNo: 'SN-PROPERTY' }).resultCd, '000');
  let invoiceNo = 0;
  return {
    sdcId: device.record.sdcId!,
    save(doc) {
      invoiceNo += 1;
      return file(
        'saveSales',
        buildZraSaleBody({
          tpin,
          bhfId: '000',
          invoiceNo,
          customer: { tpin: null, name: 'Walk-in customer' },
          paymentMethod: '01',
          occurredAt: new Date(),
          currency: 'ZMW',
          ...doc,
        }),
      );
    },
  };
}
