// fontkit ships no types; what lib/pdf-text.ts uses (pdfkit embeds fonts with fontkit and takes a fontkit font as it is).
declare module 'fontkit' {
  export interface Font {
    readonly ascent: number;
    readonly unitsPerEm: number;
    hasGlyphForCodePoint(codePoint: number): boolean;
  }
  export function create(buffer: Buffer): Font;
}
