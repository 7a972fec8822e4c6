// KRA's catalogue: item classifications (`selectItemClsList`) and code tables (`selectCodeList`),
// read leniently (an entry without a code is left out). A tax type (class 04) carries its rate
// in `userDfnCd1`: it is read into the code's `rate`, for the domain to compute with.
import type { AuthorityCode, CataloguePort, ItemClassification } from '../port/catalogue.ts';
import type { KraClient } from './client.ts';
import { pulledOf } from './calls.ts';
import { receivedDecimal, receivedRecords as receivedList, receivedText } from '../received.ts';
import { lastReqDtOf } from './wire.ts';

/** The tax types' code class. */
const TAX_TYPE_CLASS = '04';

function classificationOf(entry: Record<string, unknown>): ItemClassification[] {
  const code = receivedText(entry.itemClsCd);
  if (code === null) return [];
  const level = receivedDecimal(entry.itemClsLvl);
  const major = receivedText(entry.mjrTgYn);
  return [
    {
      code,
      name: receivedText(entry.itemClsNm) ?? code,
      level: level !== null && Number.isInteger(level) ? level : null,
      taxType: receivedText(entry.taxTyCd),
      majorTarget: major === null ? null : major === 'Y',
      inUse: entry.useYn !== 'N',
    },
  ];
}

/** One code table's entries; a tax type's rate from `userDfnCd1` (a percentage, `16`). */
function codesOf(codeClass: Record<string, unknown>): AuthorityCode[] {
  const classCode = receivedText(codeClass.cdCls);
  if (classCode === null) return [];
  const className = receivedText(codeClass.cdClsNm) ?? classCode;
  return receivedList(codeClass, 'dtlList').flatMap((detail) => {
    const code = receivedText(detail.cd);
    if (code === null) return [];
    const order = receivedDecimal(detail.srtOrd);
    const entry: AuthorityCode = {
      classCode,
      className,
      code,
      name: receivedText(detail.cdNm) ?? code,
      description: receivedText(detail.cdDesc),
      inUse: detail.useYn !== 'N' && codeClass.useYn !== 'N',
      sortOrder: order !== null && Number.isInteger(order) ? order : null,
    };
    if (classCode === TAX_TYPE_CLASS) {
      const rate = receivedDecimal(detail.userDfnCd1);
      entry.rate = rate !== null && rate >= 0 && rate < 100 ? rate : null;
    }
    return [entry];
  });
}

export function kraCataloguePort(client: KraClient): CataloguePort {
  return {
    async classifications(device, cursor, options) {
      const outcome = await client.selectItemClsList(device, { lastReqDt: lastReqDtOf(cursor) }, options);
      return pulledOf(outcome, (data) => receivedList(data, 'itemClsList').flatMap(classificationOf));
    },
    async codes(device, cursor, options) {
      const outcome = await client.selectCodeList(device, { lastReqDt: lastReqDtOf(cursor) }, options);
      return pulledOf(outcome, (data) => receivedList(data, 'clsList').flatMap(codesOf));
    },
  };
}
