import { isUtf8 } from 'node:buffer';
import { truncated } from '../lib/text.ts';

// Node reads a header's bytes as Latin-1, one character per byte. A header whose text is stored
// (a session's User-Agent) is read as the UTF-8 its sender wrote when its bytes are UTF-8, so
// that nothing is stored with characters the caller did not send ("é" sent as UTF-8 is not
// "Ã©"); other bytes keep Node's reading, Latin-1, the historic charset of header values.

/** The text of a header as its sender wrote it, at most `maxCharacters` characters (never half of one); null when absent. */
export function headerText(value: string | string[] | undefined, maxCharacters: number): string | null {
  const read = Array.isArray(value) ? value[0] : value;
  if (read === undefined) return null;
  const bytes = /[\x80-\xff]/.test(read) ? Buffer.from(read, 'latin1') : undefined;
  const text = bytes && isUtf8(bytes) ? bytes.toString('utf8') : read;
  return truncated(text, maxCharacters);
}
