/**
 * `text` cut to at most `maxCharacters` characters (code points, as the schemas' maxLength counts
 * them), never between the two halves of a surrogate pair: `slice` would leave half of an emoji,
 * which no database or VSDC stores as the character sent.
 */
export function truncated(text: string, maxCharacters: number): string {
  if (text.length <= maxCharacters) return text;
  return Array.from(text).slice(0, maxCharacters).join('');
}
