/**
 * What the console offers a caller, decided from what the API says of them (GET /v2/organizations):
 * pure, so the rules are tested without a browser (test/unit/console-caller-rules.test.ts). The
 * rules are the API's own (docs/api.md, roles): the console only avoids offering what it refuses.
 */
export type Role = 'admin' | 'user' | 'read-only';

export interface CallersOrganisation {
  id: string;
  name: string;
  role: Role;
  member_count: number;
  created_at: string;
  /** A person's own user id and email (signed in through the identity provider). */
  user_id?: string;
  email?: string;
  /** The API token the session calls with. */
  api_token_id?: string;
  api_token_name?: string;
}

export interface Caller {
  organisation: CallersOrganisation;
  /** How the header names the caller: the person's email, else the token's name. */
  name: string;
  role: Role;
  isPerson: boolean;
  /** Create, change and delete clusters and infra-envs, download credentials (docs/api.md, roles). */
  canWrite: boolean;
  isAdmin: boolean;
  /** Admins manage every token; a person manages their own, with at most their own role. */
  canManageTokens: boolean;
}

/** Why a read-only caller is not offered an action (the API's own rule, docs/api.md). */
export const READ_ONLY_REASON = 'Your role is read-only: you can see clusters, hosts and events, but not change them or download their credentials.';

const ROLE_ORDER: Role[] = ['read-only', 'user', 'admin'];
export const roleWithin = (role: Role, limit: Role) => ROLE_ORDER.indexOf(role) <= ROLE_ORDER.indexOf(limit);

export function callerOf(organisation: CallersOrganisation): Caller {
  const isPerson = organisation.user_id !== undefined;
  const name = organisation.email ?? organisation.user_id ?? (organisation.api_token_name ? `API token "${organisation.api_token_name}"` : 'an API token');
  return {
    organisation,
    name,
    role: organisation.role,
    isPerson,
    canWrite: organisation.role !== 'read-only',
    isAdmin: organisation.role === 'admin',
    canManageTokens: organisation.role === 'admin' || isPerson,
  };
}

/** A cluster's own document: `…/v2/clusters/<uuid>`, nothing after it. */
const CLUSTER_DOCUMENT = /\/v2\/clusters\/[0-9a-f-]{36}\/?$/;

/**
 * The library's viewer mode for a read-only caller: it reads `permissions.canEdit` from the current
 * cluster (its `ExtendedCluster`, what OCM's permissions feed) and then disables the wizard's
 * inputs, hides "Add hosts" and the host actions and keeps "Install cluster" disabled. The field
 * is added to the cluster as this browser received it; the API's document is upstream's.
 */
export function withViewerPermissions(url: string | undefined, method: string | undefined, data: unknown, role: string | undefined): unknown {
  if (role !== 'read-only' || (method ?? 'get').toLowerCase() !== 'get' || !url || !CLUSTER_DOCUMENT.test(url.split('?')[0]!)) return data;
  if (!data || typeof data !== 'object' || Array.isArray(data)) return data;
  return { ...(data as Record<string, unknown>), permissions: { canEdit: false } };
}
