import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('ATELIER_CORS_ORIGINS', () => {
  it('is off unless set', () => {
    expect(loadConfig({}).corsOrigins).toBeNull();
  });

  it('parses a comma-separated list of origins (trailing slashes dropped) and *', () => {
    expect(loadConfig({ ATELIER_CORS_ORIGINS: 'http://localhost:8080, https://chat.example.com/' }).corsOrigins).toEqual([
      'http://localhost:8080',
      'https://chat.example.com',
    ]);
    expect(loadConfig({ ATELIER_CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
  });

  it('refuses values that are not origins, naming the variable', () => {
    for (const bad of ['localhost:8080', 'https://chat.example.com/app', 'ftp://files.example.com']) {
      expect(() => loadConfig({ ATELIER_CORS_ORIGINS: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ ATELIER_CORS_ORIGINS: bad })).toThrow(/ATELIER_CORS_ORIGINS: must be a comma-separated list of origins/);
    }
  });
});

describe('ATELIER_BLOB_STORE and the S3 settings', () => {
  it('is the local directory unless set', () => {
    expect(loadConfig({}).blobStore).toEqual({ kind: 'local' });
  });

  it('parses s3://bucket/prefix with endpoint, path style, keys and delivery', () => {
    const c = loadConfig({
      ATELIER_BLOB_STORE: 's3://atelier-media/prod/blobs/',
      ATELIER_S3_ENDPOINT: 'https://abc.r2.cloudflarestorage.com',
      ATELIER_S3_FORCE_PATH_STYLE: '1',
      AWS_ACCESS_KEY_ID: 'AK',
      AWS_SECRET_ACCESS_KEY: 'SK',
      AWS_REGION: 'auto',
      ATELIER_S3_DELIVERY: 'presign',
    });
    expect(c.blobStore).toEqual({
      kind: 's3',
      bucket: 'atelier-media',
      prefix: 'prod/blobs/',
      endpoint: 'https://abc.r2.cloudflarestorage.com',
      region: 'auto',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AK', secretAccessKey: 'SK', sessionToken: undefined },
      delivery: 'presign',
      presignTtlS: 3600,
      partSizeBytes: 16 * 1024 * 1024,
    });
    expect(loadConfig({ ATELIER_BLOB_STORE: 's3://bucket' }).blobStore).toMatchObject({
      bucket: 'bucket',
      prefix: '',
      region: 'us-east-1',
      credentials: null,
      delivery: 'stream',
    });
  });

  it('refuses malformed values and settings that cannot apply, naming each variable', () => {
    for (const bad of ['/var/blobs', 's3://', 's3://Bad_Bucket/x', 's3://b/../x', 'https://bucket.s3.amazonaws.com']) {
      expect(() => loadConfig({ ATELIER_BLOB_STORE: bad })).toThrow(/ATELIER_BLOB_STORE: must be s3:\/\/bucket or s3:\/\/bucket\/prefix/);
    }
    expect(() => loadConfig({ ATELIER_S3_ENDPOINT: 'http://127.0.0.1:4780' })).toThrow(
      /ATELIER_S3_ENDPOINT: applies only with ATELIER_BLOB_STORE/,
    );
    expect(() => loadConfig({ ATELIER_BLOB_STORE: 's3://bucket', AWS_ACCESS_KEY_ID: 'AK' })).toThrow(
      /AWS_SECRET_ACCESS_KEY: must be set together with AWS_ACCESS_KEY_ID/,
    );
    expect(loadConfig({ AWS_ACCESS_KEY_ID: 'AK' }).blobStore).toEqual({ kind: 'local' }); // another program's variable
    expect(() => loadConfig({ ATELIER_BLOB_STORE: 's3://bucket', ATELIER_S3_PART_BYTES: '1000' })).toThrow(/ATELIER_S3_PART_BYTES/);
    expect(() => loadConfig({ ATELIER_BLOB_STORE: 's3://bucket', ATELIER_S3_DELIVERY: 'proxy' })).toThrow(/ATELIER_S3_DELIVERY/);
  });
});

describe('ATELIER_INSTANCE_ID', () => {
  it('is unset by default and accepts a short lowercase name', () => {
    expect(loadConfig({}).env.ATELIER_INSTANCE_ID).toBeUndefined();
    expect(loadConfig({ ATELIER_INSTANCE_ID: 'eu-1' }).env.ATELIER_INSTANCE_ID).toBe('eu-1');
  });

  it('refuses names a proxy could not route by (dots, upper case, too long), naming the variable', () => {
    for (const bad of ['a.b', 'Node1', '-a', 'x'.repeat(33)]) {
      expect(() => loadConfig({ ATELIER_INSTANCE_ID: bad })).toThrow(/ATELIER_INSTANCE_ID: must be 1–32 lowercase letters/);
    }
  });
});

describe('ATELIER_PUBLIC_URL and ATELIER_UI_DOMAIN', () => {
  it('is unset by default: no public URL, no panel domain', () => {
    expect(loadConfig({})).toMatchObject({ publicUrl: null, uiDomain: null });
  });

  it("drops the trailing slash and derives Claude's panel domain from <public URL>/mcp (Claude's documented example)", () => {
    expect(loadConfig({ ATELIER_PUBLIC_URL: 'https://example.com/' })).toMatchObject({
      publicUrl: 'https://example.com',
      uiDomain: 'c3d80a4ed901ee05b21755a88273b4a4.claudemcpcontent.com',
    });
  });

  it('takes ATELIER_UI_DOMAIN verbatim, and "none" for no domain', () => {
    expect(loadConfig({ ATELIER_PUBLIC_URL: 'https://example.com', ATELIER_UI_DOMAIN: 'none' }).uiDomain).toBeNull();
    expect(loadConfig({ ATELIER_UI_DOMAIN: 'www-example-com.oaiusercontent.com' }).uiDomain).toBe('www-example-com.oaiusercontent.com');
  });

  it('refuses a public URL with a path: the OAuth issuer, /mcp and /a/ hang off the origin', () => {
    expect(() => loadConfig({ ATELIER_PUBLIC_URL: 'https://example.com/atelier' })).toThrow(/ATELIER_PUBLIC_URL: must be an origin/);
  });

  it('refuses a public URL that is not http(s), naming the variable', () => {
    for (const bad of ['atelier.example.com', 'ftp://atelier.example.com']) {
      expect(() => loadConfig({ ATELIER_PUBLIC_URL: bad })).toThrow(/ATELIER_PUBLIC_URL: must be an absolute http\(s\) URL/);
    }
  });
});
