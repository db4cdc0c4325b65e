/**
 * Where the identity stand-in's provider keeps its sessions, interactions, grants and codes: in
 * this process's memory, on purpose. One process serves the stand-in, and docs/api.md says a restart
 * signs people out of the provider (not out of the console). oidc-provider's own quick-start adapter
 * does the same but warns on every start that it MUST be changed, which is true of a shared
 * deployment and not of this one; this adapter is that choice made explicitly.
 *
 * Bounded: entries expire with the lifetime the provider gives them, and at most MAX_ENTRIES are
 * kept (the oldest go first), so a flood of sign-in starts costs bounded memory.
 */
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

const MAX_ENTRIES = 50_000;

interface Entry {
  payload: AdapterPayload;
  /** Epoch ms; Infinity when the provider gave no lifetime. */
  expiresAt: number;
}

/** Models whose entries belong to a grant, and go when it is revoked. */
const GRANT_MEMBERS = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

export function memoryAdapterFactory(now: () => number = Date.now): AdapterFactory {
  const entries = new Map<string, Entry>();
  const sessionsByUid = new Map<string, string>();
  const byUserCode = new Map<string, string>();
  const grantMembers = new Map<string, Set<string>>();

  const live = (key: string): AdapterPayload | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry.payload;
  };
  const evictOldest = () => {
    while (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    // The indexes point at keys; a dangling one finds nothing, and they are trimmed to the same bound.
    for (const index of [sessionsByUid, byUserCode]) while (index.size > MAX_ENTRIES) index.delete(index.keys().next().value!);
    while (grantMembers.size > MAX_ENTRIES) grantMembers.delete(grantMembers.keys().next().value!);
  };

  return (model: string): Adapter => {
    const keyOf = (id: string) => `${model}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        const key = keyOf(id);
        entries.delete(key);
        entries.set(key, { payload, expiresAt: typeof expiresIn === 'number' ? now() + expiresIn * 1_000 : Infinity });
        if (model === 'Session' && payload.uid) sessionsByUid.set(payload.uid, id);
        if (payload.userCode) byUserCode.set(payload.userCode, id);
        if (GRANT_MEMBERS.has(model) && payload.grantId) {
          const members = grantMembers.get(payload.grantId) ?? new Set<string>();
          members.add(key);
          grantMembers.set(payload.grantId, members);
        }
        evictOldest();
      },
      async find(id) {
        return live(keyOf(id));
      },
      async findByUid(uid) {
        const id = sessionsByUid.get(uid);
        return id === undefined ? undefined : live(keyOf(id));
      },
      async findByUserCode(userCode) {
        const id = byUserCode.get(userCode);
        return id === undefined ? undefined : live(keyOf(id));
      },
      async consume(id) {
        const payload = live(keyOf(id));
        if (payload) payload.consumed = Math.floor(now() / 1_000);
      },
      async destroy(id) {
        const key = keyOf(id);
        const payload = entries.get(key)?.payload;
        entries.delete(key);
        if (payload?.uid && sessionsByUid.get(payload.uid) === id) sessionsByUid.delete(payload.uid);
        if (payload?.userCode && byUserCode.get(payload.userCode) === id) byUserCode.delete(payload.userCode);
      },
      async revokeByGrantId(grantId) {
        for (const key of grantMembers.get(grantId) ?? []) entries.delete(key);
        grantMembers.delete(grantId);
      },
    };
  };
}
