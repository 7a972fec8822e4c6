// Zambia's customers: the register's answer about a TPIN (`selectCustomer`) and a customer on the
// branch's list (`saveBrancheCustomers`).
import type { SaveBranchCustomerRequest } from '@fiscal-gateway/vsdc-protocol';
import type { AuthorityCustomer, CustomersPort, TaxpayerLookup } from '../port/customers.ts';
import { sentOf, targetOf } from './calls.ts';
import type { VsdcClient } from './client.ts';
import { GATEWAY_REGISTRANT_FIELDS } from './registrant.ts';

export function saveCustomerBody(customer: AuthorityCustomer): SaveBranchCustomerRequest {
  return {
    custNo: customer.number,
    custTpin: customer.tpin,
    custNm: customer.name,
    adrs: customer.address,
    telNo: customer.phone,
    email: customer.email,
    useYn: 'Y',
    ...GATEWAY_REGISTRANT_FIELDS,
  };
}

export function customersPort(client: VsdcClient): CustomersPort {
  return {
    async lookUp(device, tpin, options): Promise<TaxpayerLookup> {
      const outcome = await client.selectCustomer(targetOf(device), { custmTpin: tpin }, options);
      switch (outcome.kind) {
        case 'ok': {
          const list = outcome.data?.custList ?? [];
          const entry = list.find((c) => c.custTpin === tpin) ?? list[0];
          if (!entry) return { kind: 'unknown', code: outcome.resultCd, message: 'The authority returned no record for this TPIN.' };
          return { kind: 'found', code: outcome.resultCd, name: entry.custNm ?? null, address: entry.adrs ?? null };
        }
        case 'empty':
          return { kind: 'unknown', code: outcome.resultCd, message: outcome.resultMsg || 'The authority does not know this TPIN.' };
        case 'rejected':
          return { kind: 'rejected', code: outcome.code, message: outcome.message };
        case 'unreachable':
          return outcome;
      }
    },
    async register(device, customer, options) {
      return sentOf(await client.saveBrancheCustomers(targetOf(device), saveCustomerBody(customer), options));
    },
  };
}
