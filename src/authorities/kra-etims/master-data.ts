// KRA's master data through a branch's device: items (`saveItem` registers and updates alike,
// `saveItemComposition`, `selectItemList`), customers (`selectCustomer` by PIN, `saveBhfCustomer`),
// branch users (`saveBhfUser`) and the taxpayer's branches (`selectBhfList`).
import type { BranchUser, BranchUsersPort } from '../port/branch-users.ts';
import type { AuthorityCustomer, CustomersPort, TaxpayerLookup } from '../port/customers.ts';
import type { AuthorityItem, ItemsPort, ListedItem } from '../port/items.ts';
import type { AuthorityProfile } from '../port/profile.ts';
import type { AuthorityBranch, RegisterPort } from '../port/register.ts';
import type { KraClient } from './client.ts';
import { pulledOf, sentOf } from './calls.ts';
import { receivedRecords as receivedList, receivedText } from '../received.ts';
import { GATEWAY_REGISTRANT_FIELDS, KRA_EPOCH, lastReqDtOf } from './wire.ts';

function saveItemBody(item: AuthorityItem): Record<string, unknown> {
  return {
    itemCd: item.code,
    itemClsCd: item.classificationCode,
    itemTyCd: item.typeCode,
    itemNm: item.name,
    itemStdNm: null,
    orgnNatCd: item.originCountryCode,
    pkgUnitCd: item.packagingUnitCode,
    qtyUnitCd: item.quantityUnitCode,
    taxTyCd: item.vatCategory,
    btchNo: null,
    bcd: item.barcode,
    dftPrc: item.defaultPrice,
    addInfo: null,
    sftyQty: null,
    isrcAplcbYn: 'N',
    useYn: item.active ? 'Y' : 'N',
    ...GATEWAY_REGISTRANT_FIELDS,
  };
}

function listedOf(record: Record<string, unknown>, code: string): ListedItem {
  const text = (value: unknown) => receivedText(value) ?? '';
  return {
    code,
    name: text(record.itemNm),
    classificationCode: text(record.itemClsCd),
    typeCode: text(record.itemTyCd),
    packagingUnitCode: text(record.pkgUnitCd),
    quantityUnitCode: text(record.qtyUnitCd),
    vatCategory: text(record.taxTyCd),
    defaultPrice: Number(record.dftPrc ?? 0) || 0,
    active: record.useYn !== 'N',
  };
}

export function kraItemsPort(client: KraClient): ItemsPort {
  return {
    async register(device, item, options) {
      return sentOf(await client.saveItem(device, saveItemBody(item), options));
    },
    async amend(device, item, options) {
      return sentOf(await client.saveItem(device, saveItemBody(item), options));
    },
    async registerComponent(device, component, options) {
      const body = {
        itemCd: component.itemCode,
        cpstItemCd: component.componentCode,
        cpstQty: component.quantity,
        regrId: GATEWAY_REGISTRANT_FIELDS.regrId,
        regrNm: GATEWAY_REGISTRANT_FIELDS.regrNm,
      };
      return sentOf(await client.saveItemComposition(device, body, options));
    },
    async list(device, options) {
      const outcome = await client.selectItemList(device, { lastReqDt: KRA_EPOCH }, options);
      switch (outcome.kind) {
        case 'ok':
          return {
            kind: 'ok',
            items: receivedList(outcome.data, 'itemList').flatMap((r) => {
              const code = receivedText(r.itemCd);
              return code === null ? [] : [listedOf(r, code)];
            }),
          };
        case 'empty':
          return { kind: 'ok', items: [] };
        case 'unreachable':
          return outcome;
        case 'rejected':
          return { kind: 'rejected', code: outcome.code, message: outcome.message };
        default:
          return { kind: 'rejected', code: outcome.resultCd, message: outcome.resultMsg };
      }
    },
  };
}

function saveCustomerBody(customer: AuthorityCustomer): Record<string, unknown> {
  return {
    custNo: customer.number,
    custTin: customer.tpin,
    custNm: customer.name,
    adrs: customer.address,
    telNo: customer.phone,
    email: customer.email,
    faxNo: null,
    useYn: 'Y',
    remark: null,
    ...GATEWAY_REGISTRANT_FIELDS,
  };
}

/** Where a taxpayer is, as KRA's register words it: its location, sector, district, province. */
function addressOf(entry: Record<string, unknown>): string | null {
  const parts = [entry.locDesc, entry.sctrNm, entry.dstrtNm, entry.prvncNm].map(receivedText).filter((p) => p !== null);
  return parts.length === 0 ? null : parts.join(', ');
}

export function kraCustomersPort(client: KraClient): CustomersPort {
  return {
    async lookUp(device, tpin, options): Promise<TaxpayerLookup> {
      const outcome = await client.selectCustomer(device, { custmTin: tpin }, options);
      switch (outcome.kind) {
        case 'ok': {
          const list = receivedList(outcome.data, 'custList');
          const entry = list.find((c) => receivedText(c.tin) === tpin) ?? list[0];
          if (!entry) return { kind: 'unknown', code: outcome.resultCd, message: 'KRA returned no record for this PIN.' };
          return { kind: 'found', code: outcome.resultCd, name: receivedText(entry.taxprNm), address: addressOf(entry) };
        }
        case 'empty':
          return { kind: 'unknown', code: outcome.resultCd, message: outcome.resultMsg || 'KRA does not know this PIN.' };
        case 'unreachable':
          return outcome;
        case 'rejected':
          return { kind: 'rejected', code: outcome.code, message: outcome.message };
        default:
          return { kind: 'rejected', code: outcome.resultCd, message: outcome.resultMsg };
      }
    },
    async register(device, customer, options) {
      return sentOf(await client.saveBhfCustomer(device, saveCustomerBody(customer), options));
    },
  };
}

/** No password is sent: the gateway holds none in plain, and nobody signs in to KRA as this user. */
function saveBranchUserBody(user: BranchUser): Record<string, unknown> {
  return {
    userId: user.id,
    userNm: user.name,
    pwd: null,
    adrs: null,
    cntc: null,
    authCd: null,
    remark: null,
    useYn: user.active ? 'Y' : 'N',
    ...GATEWAY_REGISTRANT_FIELDS,
  };
}

export function kraBranchUsersPort(client: KraClient): BranchUsersPort {
  return {
    async register(device, user, options) {
      return sentOf(await client.saveBhfUser(device, saveBranchUserBody(user), options));
    },
  };
}

/** A branch record as the domain keeps it, or undefined when its `bhfId` is not a KRA branch. */
function branchOf(raw: Record<string, unknown>, form: AuthorityProfile['branch']): AuthorityBranch | undefined {
  const branch = receivedText(raw.bhfId);
  if (branch === null || !form.pattern.test(branch)) return undefined;
  return {
    branch,
    name: receivedText(raw.bhfNm),
    statusCode: receivedText(raw.bhfSttsCd),
    openedOn: receivedText(raw.bhfOpenDt),
    province: receivedText(raw.prvncNm),
    district: receivedText(raw.dstrtNm),
    sector: receivedText(raw.sctrNm),
    location: receivedText(raw.locDesc),
    headquarters: receivedText(raw.hqYn)?.toUpperCase() === 'Y',
    managerName: receivedText(raw.mgrNm),
    managerPhone: receivedText(raw.mgrTelNo),
    managerEmail: receivedText(raw.mgrEmail),
    record: raw,
  };
}

export function kraRegisterPort(client: KraClient, profile: Pick<AuthorityProfile, 'branch'>): RegisterPort {
  return {
    async branches(device, cursor, options) {
      const outcome = await client.selectBhfList(device, { lastReqDt: lastReqDtOf(cursor) }, options);
      return pulledOf(outcome, (data) => receivedList(data, 'bhfList').flatMap((raw) => branchOf(raw, profile.branch) ?? []));
    },
  };
}
