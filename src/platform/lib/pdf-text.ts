// Writing any Unicode text into a pdfkit document: each text is split into runs by the first font
// of a fallback chain that has the glyphs, and each run is drawn in its font (pdfkit embeds only
// the glyphs used, so a PDF stays small).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { create as openFont, type Font } from 'fontkit';

type Doc = PDFKit.PDFDocument;

interface PdfFace {
  readonly name: string;
  readonly regular: string;
  /** The bold file; none draws bold text in the regular one. */
  readonly bold?: string;
}

const require = createRequire(import.meta.url);
const dejavu = (file: string) => require.resolve(`dejavu-fonts-ttf/ttf/${file}`);
// The package exports only its script entry; its fonts sit beside dist/.
const notoHans = (file: string) => join(dirname(require.resolve('@embedpdf/fonts-sc')), '..', 'fonts', file);

/** DejaVu: Latin with its extensions (Bemba/Nyanja ŋ ŵ…), Greek, Cyrillic, Armenian, Georgian, Hebrew, Arabic. */
export const DEJAVU_SANS_MONO: PdfFace = {
  name: 'DejaVuSansMono',
  regular: dejavu('DejaVuSansMono.ttf'),
  bold: dejavu('DejaVuSansMono-Bold.ttf'),
};
export const DEJAVU_SANS: PdfFace = { name: 'DejaVuSans', regular: dejavu('DejaVuSans.ttf'), bold: dejavu('DejaVuSans-Bold.ttf') };
/**
 * Noto Sans Hans (@embedpdf/fonts-sc): Chinese (simplified and the common traditional forms),
 * Japanese kana, CJK punctuation. Regular only: embedding a subset of this CID font costs ~40 kB
 * and ~0.3 s of CPU per face and document, so bold text falls back to the regular face.
 */
const NOTO_SANS_HANS: PdfFace = { name: 'NotoSansHans', regular: notoHans('NotoSansHans-Regular.otf') };
/** Tried, in order, after the document's own face. */
const FALLBACKS: readonly PdfFace[] = [NOTO_SANS_HANS];

// Fonts are opened on first need (a receipt in Latin never reads the CJK font) and shared by
// every document: pdfkit takes a fontkit font as it is.
const fonts = new Map<string, Font>();
const fontOf = (path: string): Font => {
  let font = fonts.get(path);
  if (!font) fonts.set(path, (font = openFont(readFileSync(path))));
  return font;
};
const coverageOf = (face: PdfFace): Font => fontOf(face.regular);

const drawableBy = (face: PdfFace, text: string): boolean => {
  const font = coverageOf(face);
  for (const char of text) if (!font.hasGlyphForCodePoint(char.codePointAt(0)!)) return false;
  return true;
};

interface TextRun {
  face: PdfFace;
  text: string;
}

/**
 * The text as runs of the faces that draw it: each character in the first face of the chain that
 * has it composed, else the first that has it decomposed; control characters become spaces and a
 * character no face has becomes "?" (in the document's face).
 */
function textRuns(text: string, primary: PdfFace): TextRun[] {
  const chain = [primary, ...FALLBACKS];
  const runs: TextRun[] = [];
  const push = (face: PdfFace, part: string) => {
    const last = runs.at(-1);
    if (last && last.face === face) last.text += part;
    else runs.push({ face, text: part });
  };
  for (const char of text.normalize('NFC')) {
    if (/\p{Cc}/u.test(char)) {
      push(primary, ' ');
      continue;
    }
    const decomposed = char.normalize('NFD');
    const face = chain.find((f) => drawableBy(f, char));
    const faceDecomposed = face ? undefined : decomposed !== char ? chain.find((f) => drawableBy(f, decomposed)) : undefined;
    if (face) push(face, char);
    else if (faceDecomposed) push(faceDecomposed, decomposed);
    else push(primary, '?');
  }
  return runs;
}

/** The text as the PDF prints it (for tests and logs). */
export const printable = (text: string, primary: PdfFace = DEJAVU_SANS_MONO): string =>
  textRuns(text, primary)
    .map((r) => r.text)
    .join('');

interface WriteOptions extends PDFKit.Mixins.TextOptions {
  bold?: boolean;
}

/** Writes Unicode text into one pdfkit document, the document's face first then the fallbacks. */
export class PdfText {
  private readonly registered = new Set<string>();

  constructor(
    private readonly doc: Doc,
    private readonly primary: PdfFace,
  ) {}

  /** Selects the document's own face (for text that is known to be ASCII, or before measuring). */
  font(bold = false): Doc {
    return this.use(this.primary, bold);
  }

  private use(face: PdfFace, bold: boolean): Doc {
    const file = bold && face.bold ? face.bold : face.regular;
    const key = `${face.name}${file === face.regular ? '' : '-Bold'}`;
    if (!this.registered.has(key)) {
      this.doc.registerFont(key, fontOf(file) as unknown as Buffer);
      this.registered.add(key);
    }
    return this.doc.font(key);
  }

  width(text: string, options: { bold?: boolean } = {}): number {
    let total = 0;
    for (const run of textRuns(text, this.primary)) total += this.use(run.face, options.bold ?? false).widthOfString(run.text);
    this.font(options.bold);
    return total;
  }

  /**
   * doc.text for Unicode text. One run is drawn exactly as doc.text draws it. Several runs that fit
   * on one line are placed one after the other at the alignment asked; several runs that wrap are
   * written as continued text (aligned left).
   */
  write(text: string, x: number, y: number, options: WriteOptions = {}): void {
    const { bold = false, ...textOptions } = options;
    const runs = textRuns(text, this.primary);
    if (runs.length <= 1) {
      this.use(runs[0]?.face ?? this.primary, bold).text(runs[0]?.text ?? '', x, y, textOptions);
      return;
    }
    const doc = this.doc;
    const width = this.width(text, { bold });
    const box = textOptions.width;
    if (box === undefined || textOptions.lineBreak === false || width <= box) {
      const offset =
        box === undefined ? 0 : textOptions.align === 'right' ? box - width : textOptions.align === 'center' ? (box - width) / 2 : 0;
      let at = x + Math.max(0, offset);
      let lineHeight = 0;
      // pdfkit puts the top of each font's ascender at y: move each run onto the document face's baseline.
      const size = (doc as unknown as { _fontSize: number })._fontSize;
      const ascent = (face: PdfFace) => {
        const font = fontOf(bold && face.bold ? face.bold : face.regular);
        return (font.ascent / font.unitsPerEm) * size;
      };
      const baseline = y + ascent(this.primary);
      for (const run of runs) {
        this.use(run.face, bold).text(run.text, at, baseline - ascent(run.face), { lineBreak: false });
        at += doc.widthOfString(run.text);
        lineHeight = Math.max(lineHeight, doc.currentLineHeight(true));
      }
      doc.x = x;
      doc.y = y + lineHeight + (textOptions.lineGap ?? 0);
      this.font(bold);
      return;
    }
    runs.forEach((run, i) => {
      const continued = i < runs.length - 1;
      this.use(run.face, bold);
      if (i === 0) doc.text(run.text, x, y, { ...textOptions, align: 'left', continued });
      else doc.text(run.text, { ...textOptions, align: 'left', continued });
    });
    doc.x = x;
    this.font(bold);
  }
}
