#!/usr/bin/env node
// `npm run test:scale`: the scale-out backends' tests, in four parts.
// 0. The PostgreSQL stores (e2e/pg/stores.vitest.config.ts lists them): every storage port's PostgreSQL
//    implementation against the contract suites SQLite's pass in `npm test`, on the machine's PostgreSQL 15
//    (and PGlite for vectors), and `atelier migrate-backend` end to end into PostgreSQL with blobs on S3.
// 1. Blobs on a real S3 engine, data in SQLite: the BlobStore contract suite (local and S3) and the MCP
//    behaviour tests that touch blobs (import, upload, view, /cdn, GC races) with ATELIER_BLOB_STORE=s3://…,
//    and two server processes behind nginx (e2e/scale/proxy.test.ts; needs /usr/sbin/nginx).
//    e2e/s3/vitest.config.ts lists them.
// 2. PostgreSQL + S3: the MCP behaviour suite (e2e/pg/vitest.config.ts lists it, and what it leaves out and
//    why) with ATELIER_DATABASE_URL (ATELIER_TEST_POSTGRES_URL, default the machine's PostgreSQL 15 at
//    127.0.0.1:5432/test): every test server gets a schema of its own, all named `e2e_<run>_…` and dropped
//    at the end.
// 3. PostgreSQL with pgvector + S3: the MCP behaviour tests that need vectors (e2e/pglite/vitest.config.ts
//    lists them, and why each test data dir gets a PGlite of its own) with ATELIER_TEST_PGLITE=1: the
//    harness serves every test data dir a PGlite (PGlite + pgvector + unaccent in the test process, over
//    the wire protocol), since the machine's PostgreSQL 15 has no pgvector.
//
// S3 engine: ATELIER_TEST_S3_ENDPOINT (with ATELIER_TEST_S3_ACCESS_KEY / _SECRET_KEY, default the keys
// e2e/s3/ceph.sh creates) names a running one, as .ci/run does; unset, this script starts Ceph RGW with
// e2e/s3/ceph.sh (Debian: apt-get install -y --no-install-recommends ceph-mon ceph-osd radosgw) and stops
// it by pid at the end. The bucket (ATELIER_TEST_S3_BUCKET, default atelier-test) is created if needed;
// each run and each test server use a prefix of their own.
// first: on a Node older than `engines` allows, the suite runs again on Node 24 (scripts/modern-node.mjs)
import './modern-node.mjs';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);
const env = process.env;
const accessKey = env.ATELIER_TEST_S3_ACCESS_KEY || 'ATELIERTESTACCESS001';
const secretKey = env.ATELIER_TEST_S3_SECRET_KEY || 'atelier-test-secret-key-not-for-production';
const bucket = env.ATELIER_TEST_S3_BUCKET || 'atelier-test';

let endpoint = env.ATELIER_TEST_S3_ENDPOINT;
let cephDir = null;
const stopCeph = () => {
  if (!cephDir) return;
  spawnSync('bash', ['e2e/s3/ceph.sh', 'stop'], { stdio: 'inherit', env: { ...env, ATELIER_CEPH_DIR: cephDir } });
  fs.rmSync(cephDir, { recursive: true, force: true });
  cephDir = null;
};
for (const sig of ['SIGINT', 'SIGTERM'])
  process.on(sig, () => {
    stopCeph();
    process.exit(130);
  });

if (!endpoint) {
  cephDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-ceph-'));
  process.stdout.write('test:scale: starting Ceph RGW (e2e/s3/ceph.sh)…\n');
  const r = spawnSync('bash', ['e2e/s3/ceph.sh', 'start'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...env, ATELIER_CEPH_DIR: cephDir, S3_ACCESS_KEY: accessKey, S3_SECRET_KEY: secretKey },
  });
  if (r.status !== 0) {
    process.stderr.write(
      'test:scale: could not start Ceph RGW. Install it with\n  apt-get install -y --no-install-recommends ceph-mon ceph-osd radosgw\nor set ATELIER_TEST_S3_ENDPOINT to a running S3 engine.\n',
    );
    stopCeph();
    process.exit(1);
  }
  endpoint = r.stdout.trim().split('\n').pop();
}

let code = 1;
try {
  const client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: accessKey, secretAccessKey: secretKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (e) {
    if (e?.name !== 'BucketAlreadyOwnedByYou' && e?.name !== 'BucketAlreadyExists') throw e;
  }
  client.destroy();
  const s3Env = {
    ATELIER_BLOB_STORE: `s3://${bucket}/run-${Date.now().toString(36)}`,
    ATELIER_S3_ENDPOINT: endpoint,
    ATELIER_S3_FORCE_PATH_STYLE: '1',
    ATELIER_S3_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: accessKey,
    AWS_SECRET_ACCESS_KEY: secretKey,
  };
  process.stdout.write(`test:scale: blobs on ${s3Env.ATELIER_BLOB_STORE} at ${endpoint}\n`);
  const vitest = (config, extra) =>
    spawnSync(path.join(root, 'node_modules', '.bin', 'vitest'), ['run', '--config', config, ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: { ...env, ...extra },
    }).status ?? 1;
  process.stdout.write('test:scale: the PostgreSQL stores (contract suites, migrate-backend to S3)\n');
  const storesCode = vitest('e2e/pg/stores.vitest.config.ts', { ...s3Env, ATELIER_BLOB_STORE: `${s3Env.ATELIER_BLOB_STORE}-stores` });
  const s3Code = vitest('e2e/s3/vitest.config.ts', s3Env);
  const databaseUrl = env.ATELIER_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const schemaPrefix = `e2e_${Date.now().toString(36)}`;
  process.stdout.write(`test:scale: PostgreSQL at ${databaseUrl} (schemas ${schemaPrefix}_*) with blobs on S3\n`);
  let pgCode = 1;
  try {
    pgCode = vitest('e2e/pg/vitest.config.ts', {
      ...s3Env,
      ATELIER_BLOB_STORE: `${s3Env.ATELIER_BLOB_STORE}-pg`,
      ATELIER_DATABASE_URL: databaseUrl,
      // a process that does not get a schema of its own from its test still stays inside this run's schemas
      ATELIER_DATABASE_SCHEMA: `${schemaPrefix}_default`,
      ATELIER_TEST_SCHEMA_PREFIX: schemaPrefix,
    });
  } finally {
    await dropSchemas(databaseUrl, schemaPrefix);
  }
  process.stdout.write('test:scale: PostgreSQL with pgvector (a PGlite per test data dir) with blobs on S3\n');
  const pgliteCode = vitest('e2e/pglite/vitest.config.ts', {
    ...s3Env,
    ATELIER_BLOB_STORE: `${s3Env.ATELIER_BLOB_STORE}-pglite`,
    ATELIER_TEST_PGLITE: '1',
  });
  code = storesCode || s3Code || pgCode || pgliteCode;
} catch (e) {
  process.stderr.write(`test:scale: ${e?.stack ?? e}\n`);
} finally {
  stopCeph();
}
process.exit(code);

/** Drop every schema of this run (`<prefix>_…`): test servers leave theirs behind. */
async function dropSchemas(url, prefix) {
  const c = new pg.Client({ connectionString: url });
  try {
    await c.connect();
    const { rows } = await c.query('SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)', [`${prefix}_`]);
    for (const r of rows) await c.query(`DROP SCHEMA "${r.nspname}" CASCADE`);
  } catch (e) {
    process.stderr.write(`test:scale: could not drop the run's schemas (${prefix}_*): ${e?.message ?? e}\n`);
  } finally {
    await c.end().catch(() => undefined);
  }
}
