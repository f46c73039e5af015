import type { Scope } from '../domain/scope.ts';
import { QuotaExceededError, type QuotaCheck, type StorageUsage } from '../db/ports/storage-quota.ts';
import { ServiceError } from '../errors.ts';
import type { LibraryDeps } from './deps.ts';

/**
 * The quota check a store write runs in its transaction (server/db/ports/storage-quota.ts), or undefined
 * when the tenant's storage is unlimited (`limitBytes` 0).
 * @param limitBytes the tenant's quota, bytes (0 = unlimited)
 * @param nowMs epoch ms (uploads expired by then do not count)
 * @param exceptUploadId an upload whose staged bytes the write turns into an asset
 */
export function quotaCheck(limitBytes: number, nowMs: number, exceptUploadId?: string): QuotaCheck | undefined {
  return limitBytes > 0 ? { limitBytes, nowMs, exceptUploadId } : undefined;
}

/**
 * `quota_exceeded` on `field`: the write would take the tenant past its storage quota; nothing was stored.
 * details: limit_bytes, used_bytes (assets + staged), requested_bytes, asset_bytes, staged_bytes.
 */
export function quotaExceededError(field: string, limitBytes: number, usage: StorageUsage, requestedBytes: number): ServiceError {
  const used = usage.assetBytes + usage.stagedBytes;
  return new ServiceError(
    'quota_exceeded',
    field,
    `needs ${requestedBytes} bytes of storage but the tenant uses ${used} of its ${limitBytes}-byte quota ` +
      `(${usage.assetBytes} in assets, ${usage.stagedBytes} in staged uploads); delete assets or abort uploads first`,
    {
      details: {
        limit_bytes: limitBytes,
        used_bytes: used,
        requested_bytes: requestedBytes,
        asset_bytes: usage.assetBytes,
        staged_bytes: usage.stagedBytes,
      },
    },
  );
}

/** `e` as `quota_exceeded` on `field` when a store refused a write for the quota; any other error unchanged. */
export function asQuotaError(e: unknown, field: string): unknown {
  return e instanceof QuotaExceededError ? quotaExceededError(field, e.limitBytes, e.usage, e.requestedBytes) : e;
}

/** The storage quota in force for a tenant and where it comes from. */
export interface TenantQuota {
  /** bytes; 0 = unlimited */
  limitBytes: number;
  /** `tenant`: its own (`atelier tenant quota set`, tenants.quota_bytes); `default`: ATELIER_TENANT_QUOTA_BYTES */
  source: 'tenant' | 'default';
}

/** The tenant's own quota when an operator set one, else the server's default (one indexed read by primary key). */
export async function tenantQuota(deps: Pick<LibraryDeps, 'tenancy' | 'policy'>, tenantId: string): Promise<TenantQuota> {
  const own = await deps.tenancy.tenantQuota(tenantId);
  return own === null || own === undefined
    ? { limitBytes: deps.policy.tenantQuotaBytes, source: 'default' }
    : { limitBytes: own, source: 'tenant' };
}

/**
 * Refuse early, before any image work or blob write, a store of `bytes` that cannot fit: the insert's own
 * check (in its transaction) stays the one that decides, since renditions and conversions change the size.
 * @param knownLimit the tenant's quota in force when the caller has read it (`tenantQuota`), bytes (0 = unlimited); absent: read here
 * @throws ServiceError quota_exceeded on `field`
 */
export async function precheckQuota(
  deps: LibraryDeps,
  scope: Scope,
  field: string,
  bytes: number,
  exceptUploadId?: string,
  knownLimit?: number,
): Promise<void> {
  const limit = knownLimit ?? (await tenantQuota(deps, scope.tenantId)).limitBytes;
  if (limit <= 0) return;
  const usage = await deps.assets.storageUsage(scope.tenantId, Date.now(), exceptUploadId);
  if (usage.assetBytes + usage.stagedBytes + bytes > limit) throw quotaExceededError(field, limit, usage, bytes);
}

/**
 * The tenant's storage as `svc_discover` `scope` reports it, bytes (`quota_bytes` null = unlimited;
 * `quota_source` whether the quota is the tenant's own or the server's default).
 * @param nowMs epoch ms (uploads expired by then do not count)
 */
export async function tenantStorage(
  deps: Pick<LibraryDeps, 'assets' | 'policy' | 'tenancy'>,
  tenantId: string,
  nowMs = Date.now(),
): Promise<{
  quota_bytes: number | null;
  quota_source: TenantQuota['source'];
  used_bytes: number;
  asset_bytes: number;
  staged_bytes: number;
}> {
  const u = await deps.assets.storageUsage(tenantId, nowMs);
  const { limitBytes: limit, source } = await tenantQuota(deps, tenantId);
  return {
    quota_bytes: limit > 0 ? limit : null,
    quota_source: source,
    used_bytes: u.assetBytes + u.stagedBytes,
    asset_bytes: u.assetBytes,
    staged_bytes: u.stagedBytes,
  };
}
