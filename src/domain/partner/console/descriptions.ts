export const BACKLOG_DESCRIPTION =
  "Every branch (device) with its pending documents, the oldest one's age, refused documents and VSDC health; the longest-waiting backlog first.";
export const DOCUMENTS_DESCRIPTION =
  "Failed documents carry the authority's `resultCode` and `lastError`: they need someone to act until they are reissued or marked resolved. " +
  'A resolved one stays `failed` and has a `resolution`; `resolved=true` lists those, `resolved=false` (the default) the others.';
export const FILINGS_DESCRIPTION = 'Documents per minute by their status now, over the last hour, 6 hours or 24 hours (default).';
