import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';

// Where a body that is not JSON broke, and what was found there, for the 400 invalid_json:
// JSON.parse says neither in a form that is the same on every Node version. Only a body that
// JSON.parse refused is scanned again here (jsonc-parser, strict: no comments, no trailing commas).

/** What was expected, by jsonc-parser's name of the error (its codes are a const enum). */
const EXPECTED: Record<string, string> = {
  InvalidSymbol: 'a value: an object, an array, a string in double quotes, a number, true, false or null',
  PropertyNameExpected: 'a property name in double quotes',
  ValueExpected: 'a value',
  ColonExpected: "':' after the property name",
  CommaExpected: "',' between two entries",
  CloseBraceExpected: "'}' to close the object",
  CloseBracketExpected: "']' to close the array",
  EndOfFileExpected: 'the end of the body after the value',
  InvalidCommentToken: 'no comment (JSON has none)',
  UnexpectedEndOfComment: 'no comment (JSON has none)',
  UnexpectedEndOfString: 'a closing double quote',
  UnexpectedEndOfNumber: 'a digit',
  InvalidNumberFormat: 'a number such as 12, -0.5 or 1e3',
  InvalidUnicode: 'four hexadecimal digits after \\u',
  InvalidEscapeCharacter: 'one of the escapes \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX',
  InvalidCharacter: 'an escape instead (\\t for a tab, \\n for a line break, \\u0001 for U+0001)',
};

/** The longest stretch of the body quoted in the message. */
const MOST_QUOTED = 20;

/** A bad escape inside a string token: a backslash before a letter JSON has no escape for, or \u without 4 hex digits. */
const BAD_ESCAPE = /\\(?:u[0-9a-fA-F]{0,3}(?![0-9a-fA-F])|[^"\\/bfnrtu])/;

interface Problem {
  offset: number;
  /** What was there, in words: `unexpected '}'`, `the body ends`. */
  what: string;
  expected?: string;
}

function quoted(token: string): string {
  const shown = token.length > MOST_QUOTED ? `${token.slice(0, MOST_QUOTED)}…` : token;
  return token.startsWith("'") ? shown : `'${shown}'`;
}

function controlCharacter(char: string): string {
  if (char === '\n' || char === '\r') return 'a line break';
  if (char === '\t') return 'a tab';
  return `the control character U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

function problemOf(text: string, error: ParseError): Problem {
  const code = printParseErrorCode(error.error);
  const expected = EXPECTED[code];
  if (error.offset >= text.length) return { offset: text.length, what: 'the body ends', expected };
  const token = text.slice(error.offset, error.offset + Math.max(1, error.length));
  const next = text[error.offset + error.length];
  // A string broken by a line break: jsonc-parser reports the string; say where it broke.
  if (code === 'UnexpectedEndOfString' && (next === '\n' || next === '\r')) {
    return {
      offset: error.offset + error.length,
      what: 'a line break inside a string',
      expected: 'the closing double quote on the same line (write a line break inside a string as \\n)',
    };
  }
  if (code === 'InvalidEscapeCharacter' || code === 'InvalidUnicode') {
    const escape = BAD_ESCAPE.exec(token);
    if (escape) return { offset: error.offset + escape.index, what: `unexpected ${quoted(escape[0])}`, expected };
  }
  if (code === 'InvalidCharacter') {
    const control = [...token].findIndex((char) => char.charCodeAt(0) < 0x20);
    if (control >= 0) return { offset: error.offset + control, what: `${controlCharacter(token[control]!)} inside a string`, expected };
  }
  if (token.length === 1 && token.charCodeAt(0) < 0x20)
    return { offset: error.offset, what: `a stray ${controlCharacter(token).replace(/^(a|the) /, '')}`, expected };
  if (token.startsWith("'"))
    return { offset: error.offset, what: `unexpected ${quoted(token)}`, expected: 'strings and property names in double quotes' };
  return { offset: error.offset, what: `unexpected ${quoted(token)}`, expected };
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * The message for a body JSON.parse refused: `The request body is not valid JSON: unexpected '}'
 * at line 3, column 5; expected a value.`
 */
export function invalidJsonMessage(body: string): string {
  const generic = 'The request body is not valid JSON.';
  const text = body.startsWith('\uFEFF') ? body.slice(1) : body; // a byte order mark is not where it broke
  const errors: ParseError[] = [];
  try {
    parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  } catch {
    return generic; // nesting deeper than the scanner's stack: JSON.parse's refusal stands, unplaced
  }
  const error = errors[0];
  if (!error) return generic;
  const problem = problemOf(text, error);
  const { line, column } = lineAndColumn(text, problem.offset);
  return `The request body is not valid JSON: ${problem.what} at line ${line}, column ${column}${problem.expected ? `; expected ${problem.expected}` : ''}.`;
}
