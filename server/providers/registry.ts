import type { CapabilityEntry } from '../../shared/schemas/asset.ts';
import type { ImageProvider } from './types.ts';

/** The providers enabled on this server, in preference order (the first is the default). */
export interface ProviderRegistry {
  list(): ImageProvider[];
  get(id: string): ImageProvider | undefined;
  /** Capability entries of every enabled provider/model pair. */
  capabilities(): CapabilityEntry[];
}

export function createProviderRegistry(providers: ImageProvider[]): ProviderRegistry {
  return {
    list: () => providers,
    get: (id) => providers.find((p) => p.id === id),
    capabilities: () => providers.flatMap((p) => p.capabilities()),
  };
}
