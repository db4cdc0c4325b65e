import type { Role } from '../domain/entities.js';

/** Who is calling, as established by authentication. Every use case scopes its reads by `orgId`. */
export type Principal =
  | { kind: 'user'; orgId: string; tokenId: string; role: Role }
  | { kind: 'agent'; orgId: string; infraEnvId: string };
