// Zambia's catalogue: the classification (`selectItemsClass`) and the code tables (`selectCodes`),
// read leniently (an entry without a code is left out).
import type { CodeClass, ItemClass } from '@fiscal-gateway/vsdc-protocol';
import type { AuthorityCode, CataloguePort, ItemClassification } from '../port/catalogue.ts';
import { lastReqDtOf, pulledOf, targetOf } from './calls.ts';
import type { VsdcClient } from './client.ts';

function classificationOf(entry: ItemClass): ItemClassification | undefined {
  const code = typeof entry.itemClsCd === 'string' ? entry.itemClsCd.trim() : '';
  if (code === '') return undefined;
  const level = Number(entry.itemClsLvl);
  return {
    code,
    name: typeof entry.itemClsNm === 'string' ? entry.itemClsNm : code,
    level: Number.isInteger(level) ? level : null,
    taxType: entry.taxTyCd ?? null,
    majorTarget: entry.mjrTgYn === null || entry.mjrTgYn === undefined ? null : entry.mjrTgYn === 'Y',
    inUse: entry.useYn !== 'N',
  };
}

/** A code table's entries. */
function codesOf(codeClass: CodeClass): AuthorityCode[] {
  const classCode = typeof codeClass?.cdCls === 'string' ? codeClass.cdCls.trim() : '';
  if (classCode === '' || !Array.isArray(codeClass.dtlList)) return [];
  const className = typeof codeClass.cdClsNm === 'string' ? codeClass.cdClsNm : classCode;
  return codeClass.dtlList.flatMap((detail) => {
    const code = typeof detail?.cd === 'string' ? detail.cd.trim() : '';
    if (code === '') return [];
    const order = Number(detail.srtOrd);
    return [
      {
        classCode,
        className,
        code,
        name: typeof detail.cdNm === 'string' ? detail.cdNm : code,
        description: typeof detail.cdDesc === 'string' ? detail.cdDesc : null,
        inUse: detail.useYn !== 'N' && codeClass.useYn !== 'N',
        sortOrder: Number.isInteger(order) ? order : null,
      },
    ];
  });
}

export function cataloguePort(client: VsdcClient): CataloguePort {
  return {
    async classifications(device, cursor, options) {
      const outcome = await client.selectItemsClass(targetOf(device), { lastReqDt: lastReqDtOf(cursor) }, options);
      return pulledOf(outcome, (data) => (data?.itemClsList ?? []).flatMap((entry) => classificationOf(entry) ?? []));
    },
    async codes(device, cursor, options) {
      const outcome = await client.selectCodes(targetOf(device), { lastReqDt: lastReqDtOf(cursor) }, options);
      return pulledOf(outcome, (data) => (data?.clsList ?? []).flatMap(codesOf));
    },
  };
}
