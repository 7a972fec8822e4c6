// The text of a PDF as pdfkit writes it (embedded Type0 fonts, Identity-H, a ToUnicode CMap each,
// FlateDecode streams): enough to check what a receipt says without a PDF library.
import { inflateSync } from 'node:zlib';

interface PdfObject {
  dict: string;
  stream: Buffer | null;
}

// Objects are walked in order and a stream is read by its /Length, never by searching for
// "endstream"/"endobj": compressed bytes may contain those words.
function objectsOf(pdf: Buffer): Map<number, PdfObject> {
  const text = pdf.toString('latin1');
  const objects = new Map<number, PdfObject>();
  const header = /(\d+) 0 obj\b/g;
  for (let m = header.exec(text); m; m = header.exec(text)) {
    const from = m.index + m[0].length;
    const streamAt = text.indexOf('stream', from);
    const endAt = text.indexOf('endobj', from);
    if (endAt < 0) break;
    if (streamAt < 0 || endAt < streamAt) {
      objects.set(Number(m[1]), { dict: text.slice(from, endAt), stream: null });
      header.lastIndex = endAt + 'endobj'.length;
      continue;
    }
    const dict = text.slice(from, streamAt);
    const length = /\/Length (\d+)(?! \d+ R)/.exec(dict);
    if (!length) throw new Error(`object ${m[1]}: a stream without a direct /Length`);
    let start = streamAt + 'stream'.length;
    if (text[start] === '\r') start++;
    if (text[start] === '\n') start++;
    const raw = pdf.subarray(start, start + Number(length[1]));
    objects.set(Number(m[1]), { dict, stream: /\/FlateDecode/.test(dict) ? inflateSync(raw) : Buffer.from(raw) });
    header.lastIndex = text.indexOf('endobj', start + raw.length) + 'endobj'.length;
  }
  return objects;
}

/** A ToUnicode CMap: glyph code (hex) → text. */
function cmapOf(cmap: string): Map<number, string> {
  const map = new Map<number, string>();
  const utf16 = (hex: string) => Buffer.from(hex, 'hex').swap16().toString('utf16le');
  for (const block of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const [, code, uni] of block[1]!.matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>/g)) map.set(parseInt(code!, 16), utf16(uni!));
  }
  for (const block of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const [, lo, hi, target] of block[1]!.matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(\[[^\]]*\]|<[0-9a-fA-F]+>)/g)) {
      const from = parseInt(lo!, 16);
      const to = parseInt(hi!, 16);
      if (target!.startsWith('[')) {
        // An entry may be several code units (a ligature: `<0066 0069>` is "fi").
        [...target!.matchAll(/<([0-9a-fA-F\s]+)>/g)].forEach(([, uni], i) => map.set(from + i, utf16(uni!.replace(/\s+/g, ''))));
      } else {
        const base = parseInt(target!.slice(1, -1), 16);
        for (let c = from; c <= to; c++) map.set(c, String.fromCodePoint(base + c - from));
      }
    }
  }
  return map;
}

/** Every text-showing operation's text, one string per BT…ET block, in drawing order. */
export function pdfText(pdf: Buffer): string {
  const objects = objectsOf(pdf);
  // Font resource name → its ToUnicode map (pdfkit names fonts F1, F2… across the document).
  const fonts = new Map<string, Map<number, string>>();
  for (const { dict } of objects.values()) {
    const resources = /\/Font\s*<<([\s\S]*?)>>/.exec(dict);
    if (!resources) continue;
    for (const [, name, ref] of resources[1]!.matchAll(/\/(\w+)\s+(\d+) 0 R/g)) {
      const font = objects.get(Number(ref));
      const toUnicode = font && /\/ToUnicode (\d+) 0 R/.exec(font.dict);
      const cmap = toUnicode && objects.get(Number(toUnicode[1]))?.stream;
      if (cmap) fonts.set(name!, cmapOf(cmap.toString('latin1')));
    }
  }
  // A block on the baseline of the one before in another font is the next run of the same line
  // (lib/pdf-text.ts draws a line in several fonts): it joins without a break.
  let text = '';
  let previous: { baseline: string | undefined; font: string | undefined } | undefined;
  for (const { dict, stream } of objects.values()) {
    if (
      !stream ||
      /\/(Type|Subtype)\s*\/(XObject|FontFile|Font|Metadata)|\/Length1|\/CIDInit/.test(dict + stream.subarray(0, 40).toString('latin1'))
    )
      continue;
    const content = stream.toString('latin1');
    if (!content.includes('BT')) continue;
    let font: Map<number, string> | undefined;
    for (const block of content.matchAll(/BT([\s\S]*?)ET/g)) {
      const here = { baseline: /[\d.-]+\s+([\d.-]+)\s+Tm/.exec(block[1]!)?.[1], font: /\/(\w+)\s+[\d.]+\s+Tf/.exec(block[1]!)?.[1] };
      if (previous) text += here.baseline !== undefined && here.baseline === previous.baseline && here.font !== previous.font ? '' : '\n';
      previous = here;
      for (const op of block[1]!.matchAll(/\/(\w+)\s+[\d.]+\s+Tf|\[((?:[^\]])*)\]\s*TJ|<([0-9a-fA-F]*)>\s*Tj/g)) {
        if (op[1]) font = fonts.get(op[1]);
        const hexes = op[2] !== undefined ? [...op[2].matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => h[1]!) : op[3] !== undefined ? [op[3]] : [];
        for (const hex of hexes) {
          for (let i = 0; i + 4 <= hex.length; i += 4) text += font?.get(parseInt(hex.slice(i, i + 4), 16)) ?? '\uFFFD';
        }
      }
    }
  }
  return text;
}
