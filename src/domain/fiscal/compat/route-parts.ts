// What the legacy till surface's route files share: the tag, the declaration of a route that
// X-SdcId's branch answers, and the dialect envelope each description ends with.
export const TAG = ['Legacy tills (/zm/api)'];
export const WITH_BRANCH = { auth: { surface: 'compat' as const } };

const ENVELOPE =
  'Bare by default (the payload below). For a key minted with `dialect: "wrapped"` every answer is wrapped with the same HTTP status: ' +
  'success `{"success": true, "message": "OK", "data": <payload>}`, failure `{"success": false, "httpCode": <status>, …every field of the bare error}`.';

export function described(text: string): string {
  return `${text}\n\n${ENVELOPE}`;
}
