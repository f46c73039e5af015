import { describe, expect, it } from 'vitest';
import { cleanFileName } from '../../shared/schemas/common.ts';
import { printable } from './printable.ts';

describe('file names and model-facing text', () => {
  it('cleanFileName: NFC, breaks as one space, controls and bidi formatting removed', () => {
    expect(cleanFileName('  a\r\nb\t\tc\u0000d\u202Ee\u2066f\u2069.png ')).toBe('a b cdef.png');
    expect(cleanFileName('cafe\u0301.jpg')).toBe('café.jpg');
    expect(cleanFileName('\u0000\u202E')).toBe('');
  });
  it('printable escapes what a stored string may still hold', () => {
    expect(printable('old\nrow\u202E.png')).toBe('old\\u000arow\\u202e.png');
    expect(printable('plain name.jpg')).toBe('plain name.jpg');
  });
});
