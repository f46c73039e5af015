import type { Command } from 'commander';
import { tenantQuota } from '../assets/quota.ts';
import { boot } from '../main.ts';
import { createStore, createTheme, revokeApiKey } from '../tenancy/admin.ts';
import type { CliKit } from './catalog.ts';

/**
 * The value of `tenant quota set`: `unlimited` → 0, `default` → null (the server's ATELIER_TENANT_QUOTA_BYTES),
 * else a whole number of bytes ≥ 1 (digits only, at most 2^53 − 1). @returns undefined when it is none of these
 */
export function parseQuotaValue(v: string): number | null | undefined {
  if (v === 'unlimited') return 0;
  if (v === 'default') return null;
  if (!/^[1-9][0-9]*$/.test(v)) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Open the app and the workspace named by an operator (any tenant, any status). */
async function openWorkspace(kit: CliKit, workspaceId: string) {
  const { app } = await boot();
  const ws = await app.library.tenancy.operator.workspaceById(workspaceId);
  if (!ws) kit.fail(`workspace ${workspaceId} does not exist`);
  return { app, ws };
}

/**
 * Operator commands that match what `svc_discover scope` shows an agent: `atelier theme create|list`,
 * `atelier store create|list`, `atelier workspace archive`, `atelier keys list|revoke`, `atelier tenant quota set|show`. Output is one
 * JSON object with `--json` (stable keys), else `key: value` lines.
 * @param groups the existing `workspace` and `keys` command groups of the CLI
 */
export function registerTenancyCommands(
  program: Command,
  kit: CliKit,
  groups: { tenant: Command; workspace: Command; keys: Command },
): void {
  registerQuotaCommands(kit, groups.tenant);
  const theme = program.command('theme').description("a workspace's themes (brand kits): asset search and select need a theme_id");
  theme
    .command('create')
    .description('add a theme to a workspace; the first theme of a workspace, or one created with --default, is its default')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--name <name>', 'theme name')
    .option('--default', "make it the workspace's default theme")
    .option('--json', 'print {"tenant_id","workspace_id","theme_id","default"}')
    .action(async (o: { workspace: string; name: string; default?: boolean; json?: boolean }) => {
      const { app, ws } = await openWorkspace(kit, o.workspace);
      const t = await createTheme(app.library.tenancy, ws.tenant_id, ws.id, o.name, { makeDefault: !!o.default });
      await app.close();
      const out = { tenant_id: ws.tenant_id, workspace_id: ws.id, theme_id: t.theme_id, default: t.default };
      kit.emit(
        !!o.json,
        out,
        Object.entries(out)
          .map(([k, v]) => `${k}: ${v}`)
          .join('\n'),
      );
    });
  theme
    .command('list')
    .description("a workspace's themes, the default first")
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'print {"workspace_id","themes":[{"theme_id","name","default","created_at"}]}')
    .action(async (o: { workspace: string; json?: boolean }) => {
      const { app, ws } = await openWorkspace(kit, o.workspace);
      const themes = (await app.library.tenancy.themesOfWorkspace(ws.tenant_id, ws.id)).map((t) => ({
        theme_id: t.id,
        name: t.name,
        default: t.is_default,
        created_at: t.created_at,
      }));
      await app.close();
      kit.emit(
        !!o.json,
        { workspace_id: ws.id, themes },
        themes.map((t) => `${t.theme_id}  ${t.name}${t.default ? '  (default)' : ''}`).join('\n') || 'no themes',
      );
    });

  const store = program
    .command('store')
    .description("a workspace's stores (product catalogs): catalog calls need a store_id when a workspace has several");
  store
    .command('create')
    .description('add an active store to a workspace')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--name <name>', 'store name')
    .option('--shop <domain>', 'Shopify shop domain, e.g. my-shop.myshopify.com')
    .option('--json', 'print {"tenant_id","workspace_id","store_id"}')
    .action(async (o: { workspace: string; name: string; shop?: string; json?: boolean }) => {
      const { app, ws } = await openWorkspace(kit, o.workspace);
      if (ws.status !== 'active') kit.fail(`workspace ${ws.id} is archived`);
      const s = await createStore(app.library.tenancy, ws.tenant_id, ws.id, o.name, { shopDomain: o.shop ?? null });
      await app.close();
      const out = { tenant_id: ws.tenant_id, workspace_id: ws.id, store_id: s.store_id };
      kit.emit(
        !!o.json,
        out,
        Object.entries(out)
          .map(([k, v]) => `${k}: ${v}`)
          .join('\n'),
      );
    });
  store
    .command('list')
    .description("a workspace's stores")
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'print {"workspace_id","stores":[{"store_id","name","status","shop_domain","catalog_synced_at"}]}')
    .action(async (o: { workspace: string; json?: boolean }) => {
      const { app, ws } = await openWorkspace(kit, o.workspace);
      const stores = (await app.library.tenancy.storesOfWorkspace(ws.tenant_id, ws.id)).map((s) => ({
        store_id: s.id,
        name: s.name,
        status: s.status,
        shop_domain: s.shop_domain,
        catalog_synced_at: s.catalog_synced_at,
      }));
      await app.close();
      kit.emit(
        !!o.json,
        { workspace_id: ws.id, stores },
        stores
          .map((s) => `${s.store_id}  ${s.name}  ${s.status}${s.catalog_synced_at ? `  synced ${s.catalog_synced_at}` : ''}`)
          .join('\n') || 'no stores',
      );
    });

  groups.workspace
    .command('archive')
    .description('archive a workspace: API keys no longer reach it and it is never chosen automatically (its data stays)')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'print {"workspace_id","status"}')
    .action(async (o: { workspace: string; json?: boolean }) => {
      const { app, ws } = await openWorkspace(kit, o.workspace);
      await app.library.tenancy.setWorkspaceStatus(ws.tenant_id, ws.id, 'archived');
      await app.close();
      kit.emit(!!o.json, { workspace_id: ws.id, status: 'archived' }, `workspace_id: ${ws.id}\nstatus: archived`);
    });

  groups.keys
    .command('list')
    .description("a tenant's API keys (the keys themselves are never stored: only a prefix is shown)")
    .requiredOption('--tenant <id>', 'tenant id')
    .option('--json', 'print {"tenant_id","keys":[{"api_key_id","name","prefix","created_at","revoked_at","workspace_ids"}]}')
    .action(async (o: { tenant: string; json?: boolean }) => {
      const { app } = await boot();
      const t = app.library.tenancy;
      if (!(await t.tenant(o.tenant))) kit.fail(`tenant ${o.tenant} does not exist`);
      const keys = await Promise.all(
        (await t.allKeysOfTenant(o.tenant)).map(async (k) => ({
          api_key_id: k.id,
          name: k.name,
          prefix: k.prefix,
          created_at: k.created_at,
          revoked_at: k.revoked_at,
          workspace_ids: await t.grantsOfKey(k.id),
        })),
      );
      await app.close();
      kit.emit(
        !!o.json,
        { tenant_id: o.tenant, keys },
        keys.map((k) => `${k.api_key_id}  ${k.prefix}…  ${k.name}${k.revoked_at ? `  revoked ${k.revoked_at}` : ''}`).join('\n') ||
          'no keys',
      );
    });
  groups.keys
    .command('revoke')
    .description('revoke an API key: refused at once, on new requests and on open sessions alike')
    .requiredOption('--key <api_key_id>', 'API key id (from keys list)')
    .option('--json', 'print {"api_key_id","tenant_id","revoked_at"}')
    .action(async (o: { key: string; json?: boolean }) => {
      const { app } = await boot();
      const row = await app.library.tenancy.operator.keyById(o.key);
      if (!row) kit.fail(`API key ${o.key} does not exist`);
      if (row.revoked_at) kit.fail(`API key ${o.key} was already revoked at ${row.revoked_at}`);
      await revokeApiKey(app.library.tenancy, row.tenant_id, row.id);
      const after = (await app.library.tenancy.operator.keyById(o.key))!;
      await app.close();
      const out = { api_key_id: row.id, tenant_id: row.tenant_id, revoked_at: after.revoked_at };
      kit.emit(
        !!o.json,
        out,
        Object.entries(out)
          .map(([k, v]) => `${k}: ${v}`)
          .join('\n'),
      );
    });
}

/** `atelier tenant quota set|show`: a tenant's own storage quota (tenants.quota_bytes) over ATELIER_TENANT_QUOTA_BYTES. */
function registerQuotaCommands(kit: CliKit, tenant: Command): void {
  const quota = tenant.command('quota').description("a tenant's storage quota: its own, or the server's ATELIER_TENANT_QUOTA_BYTES");
  const show = async (o: { json?: boolean }, tenantId: string, app: Awaited<ReturnType<typeof boot>>['app']) => {
    const q = await tenantQuota(app.library, tenantId);
    await app.close();
    const out = { tenant_id: tenantId, quota_bytes: q.limitBytes > 0 ? q.limitBytes : null, quota_source: q.source };
    kit.emit(
      !!o.json,
      out,
      `tenant_id: ${tenantId}\nquota_bytes: ${out.quota_bytes ?? 'unlimited'}\nquota_source: ${q.source === 'tenant' ? 'tenant (its own)' : 'default (ATELIER_TENANT_QUOTA_BYTES)'}`,
    );
  };
  quota
    .command('set')
    .description("give a tenant its own storage quota: bytes, 'unlimited', or 'default' (back to ATELIER_TENANT_QUOTA_BYTES)")
    .argument('<tenant>', 'tenant id')
    .argument('<quota>', "bytes (a whole number ≥ 1), 'unlimited' or 'default'")
    .option('--json', 'print {"tenant_id","quota_bytes","quota_source"} (quota_bytes null = unlimited; quota_source tenant | default)')
    .action(async (tenantId: string, value: string, o: { json?: boolean }) => {
      const bytes = parseQuotaValue(value);
      if (bytes === undefined) kit.fail(`quota must be a whole number of bytes ≥ 1, 'unlimited' or 'default'; got '${value}'`);
      const { app } = await boot();
      if (!(await app.library.tenancy.setTenantQuota(tenantId, bytes))) {
        await app.close();
        kit.fail(`tenant ${tenantId} does not exist`);
      }
      await show(o, tenantId, app);
    });
  quota
    .command('show')
    .description("a tenant's storage quota in force and whether it is its own or the default")
    .argument('<tenant>', 'tenant id')
    .option('--json', 'print {"tenant_id","quota_bytes","quota_source"}')
    .action(async (tenantId: string, o: { json?: boolean }) => {
      const { app } = await boot();
      if (!(await app.library.tenancy.tenant(tenantId))) {
        await app.close();
        kit.fail(`tenant ${tenantId} does not exist`);
      }
      await show(o, tenantId, app);
    });
}
