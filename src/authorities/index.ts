// The registry: one line per authority profile. A device's profile (its tenant's authority and its
// protocol) picks the adapter; the domain reaches authorities through this and ./port/ only.
import type { AuthorityProfileId, FiscalAuthority } from './port/index.ts';
import type { AuthorityProfile } from './port/profile.ts';
import type { SalesType } from './port/filing.ts';
import { createTransport, type Transport, type TransportOptions } from './transport.ts';
import { createVsdcClient } from './zra-vsdc/client.ts';
import { ZRA_VSDC_PROFILE, zraVsdcAuthority } from './zra-vsdc/adapter.ts';
import { createKraClient } from './kra-etims/client.ts';
import { KRA_OSCU_PROFILE, KRA_VSCU_PROFILE, kraEtimsAuthority } from './kra-etims/adapter.ts';

/** What every adapter is built from: the shared transport, and how its client is instrumented. */
interface AuthorityDeps {
  transport: Transport;
  /** Wraps a client so that each call is counted and timed (the context's metrics). */
  instrument: <C extends object>(client: C) => C;
  now: () => Date;
}

interface AuthorityModule {
  profile: AuthorityProfile;
  create(deps: AuthorityDeps): FiscalAuthority;
}

const REGISTRY: Readonly<Record<AuthorityProfileId, AuthorityModule>> = {
  'zra-vsdc': {
    profile: ZRA_VSDC_PROFILE,
    create: (deps) => zraVsdcAuthority(deps.instrument(createVsdcClient(deps.transport)), deps.now),
  },
  'kra-oscu': {
    profile: KRA_OSCU_PROFILE,
    create: (deps) => kraEtimsAuthority(deps.instrument(createKraClient('oscu', deps.transport)), deps.now),
  },
  'kra-vscu': {
    profile: KRA_VSCU_PROFILE,
    create: (deps) => kraEtimsAuthority(deps.instrument(createKraClient('vscu', deps.transport)), deps.now),
  },
};

function moduleOf(profile: string): AuthorityModule {
  if (!Object.hasOwn(REGISTRY, profile)) throw new Error(`no adapter for the authority profile ${profile} (src/authorities/index.ts)`);
  return REGISTRY[profile as AuthorityProfileId]!;
}

/** Every profile's facts, for validation and display (no adapter needed). */
export const AUTHORITY_PROFILES: Readonly<Record<AuthorityProfileId, AuthorityProfile>> = Object.fromEntries(
  Object.entries(REGISTRY).map(([id, module]) => [id, module.profile]),
) as Record<AuthorityProfileId, AuthorityProfile>;

/** One profile's facts (`zra-vsdc`); an id the registry does not have is a programming error. */
export function authorityProfile(id: AuthorityProfileId): AuthorityProfile {
  return moduleOf(id).profile;
}

/** The profile of a device: its tenant's authority and its own protocol, as the database holds them. */
export function profileOf(authority: string, protocol: string): AuthorityProfileId {
  const id: AuthorityProfileId = `${authority}-${protocol}`;
  moduleOf(id);
  return id;
}

/** The authorities of one context: each adapter built once, over one transport. */
export interface Authorities {
  of(profile: AuthorityProfileId): FiscalAuthority;
  close(): Promise<void>;
}

export function createAuthorities(options: {
  transport: TransportOptions;
  instrument?: AuthorityDeps['instrument'];
  now?: () => Date;
}): Authorities {
  const transport = createTransport(options.transport);
  const deps: AuthorityDeps = { transport, instrument: options.instrument ?? ((client) => client), now: options.now ?? (() => new Date()) };
  const built = new Map<AuthorityProfileId, FiscalAuthority>();
  return {
    of(profile) {
      let authority = built.get(profile);
      if (!authority) built.set(profile, (authority = moduleOf(profile).create(deps)));
      return authority;
    },
    close: () => transport.close(),
  };
}

/** The profile a merchant's documents are validated and shown by: its authority's (`tenants.authority`). */
export function merchantProfile(authority: string): AuthorityProfile {
  const profile = Object.values(AUTHORITY_PROFILES).find((p) => p.authority === authority);
  if (!profile) throw new Error(`no authority profile for the authority ${authority} (src/authorities/index.ts)`);
  return profile;
}

/** The document kinds some unit of an authority files (whether a branch's own unit does is checked where the document is stored). */
export function authoritySalesTypes(authority: string): SalesType[] {
  const kinds = new Set(
    Object.values(AUTHORITY_PROFILES)
      .filter((p) => p.authority === authority)
      .flatMap((p) => p.salesTypes),
  );
  return (['normal', 'training', 'proforma'] as const).filter((kind) => kinds.has(kind));
}

/** Of an authority's units (by the device's protocol): those that file a kind, and those that number it from the normal sequence. */
export interface KindUnits {
  files: readonly string[];
  shareSequence: readonly string[];
}

export function kindUnits(authority: string, salesType: SalesType): KindUnits {
  const units = Object.values(AUTHORITY_PROFILES).filter((p) => p.authority === authority && p.salesTypes.includes(salesType));
  return {
    files: units.map((p) => p.protocol),
    shareSequence: salesType === 'normal' ? [] : units.filter((p) => p.kindsShareSequence).map((p) => p.protocol),
  };
}

/** The profiles whose units number every kind from the normal sequence. */
export const PROFILES_SHARING_SEQUENCE: readonly AuthorityProfileId[] = Object.values(AUTHORITY_PROFILES)
  .filter((p) => p.kindsShareSequence)
  .map((p) => p.id);
