// Who the gateway tells the VSDC registered or last changed what it sends (`regrId`/`regrNm`,
// `modrId`/`modrNm`) when nobody else is named (a till's own registrant travels with its sale).

/** The gateway's id and name as registrant and modifier. */
export const GATEWAY_REGISTRANT = 'fiscal-gateway';

/** The four fields of a body the gateway both registers and modifies. */
export const GATEWAY_REGISTRANT_FIELDS = {
  regrId: GATEWAY_REGISTRANT,
  regrNm: GATEWAY_REGISTRANT,
  modrId: GATEWAY_REGISTRANT,
  modrNm: GATEWAY_REGISTRANT,
} as const;
