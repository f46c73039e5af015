import { describe, expect, it } from 'vitest';
import { MAX_NAME_BYTES, safeFileName } from './file-name.ts';

describe('safeFileName', () => {
  it.each([
    ['../../etc/passwd', 'jpeg', 'passwd.jpg', ['path', 'extension']],
    ['..\\..\\windows\\win.ini', 'png', 'win.ini.png', ['path', 'extension']],
    ['/etc/passwd', 'png', 'passwd.png', ['path', 'extension']],
    ['%2e%2e%2f%2e%2e%2fetc%2fpasswd.png', 'png', 'passwd.png', ['decoded', 'path']],
    ['%252e%252e%252fx.png', 'png', '%2e%2e%2fx.png', ['decoded']], // decoded once only
    ['50%-off.png', 'png', '50%-off.png', []], // a stray % is no escape
    ['a%00b.png', 'png', 'ab.png', ['decoded', 'characters']],
    ['invoice\u202Egnp.exe', 'png', 'invoicegnp.exe.png', ['characters', 'extension']],
    ['.htaccess', 'png', 'htaccess.png', ['characters', 'extension']],
    ['sunset.JPG', 'jpeg', 'sunset.JPG', []],
    ['sunset.jpeg', 'jpeg', 'sunset.jpeg', []],
    ['sunset.png', 'jpeg', 'sunset.jpg', ['extension']],
    ['sunset', 'webp', 'sunset.webp', ['extension']],
    ['v1.2 final', 'png', 'v1.2 final.png', ['extension']],
    ['what?.png', 'png', 'what_.png', ['characters']],
    ['clip.mov', 'mov', 'clip.mov', []],
  ])('%s (%s) → %s', (input, format, name, changed) => {
    const r = safeFileName(input, format);
    expect(r.name).toBe(name);
    expect(r.changed.sort()).toEqual([...changed].sort());
  });

  it('nothing usable left: empty name', () => {
    expect(safeFileName('../..', 'png').name).toBe('');
    expect(safeFileName('\u202E/\\.', 'png').name).toBe('');
  });

  it('caps the name at 255 UTF-8 bytes, keeping the extension and whole code points', () => {
    const r = safeFileName(`${'é'.repeat(300)}.png`, 'png');
    expect(Buffer.byteLength(r.name)).toBeLessThanOrEqual(MAX_NAME_BYTES);
    expect(r.name).toMatch(/^é+\.png$/);
    expect(r.changed).toEqual(['length']);
  });
});
