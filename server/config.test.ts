import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('ATELIER_CORS_ORIGINS', () => {
  it('is off unless set', () => {
    expect(loadConfig({}).corsOrigins).toBeNull();
  });

  it('parses a comma-separated list of origins (trailing slashes dropped) and *', () => {
    expect(loadConfig({ ATELIER_CORS_ORIGINS: 'http://localhost:8080, https://chat.example.com/' }).corsOrigins).toEqual(['http://localhost:8080', 'https://chat.example.com']);
    expect(loadConfig({ ATELIER_CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
  });

  it('refuses values that are not origins, naming the variable', () => {
    for (const bad of ['localhost:8080', 'https://chat.example.com/app', 'ftp://files.example.com']) {
      expect(() => loadConfig({ ATELIER_CORS_ORIGINS: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ ATELIER_CORS_ORIGINS: bad })).toThrow(/ATELIER_CORS_ORIGINS: must be a comma-separated list of origins/);
    }
  });
});
