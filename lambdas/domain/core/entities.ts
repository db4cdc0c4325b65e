import type { Schemas } from '../../../contracts/wire.js';

/**
 * The records the service keeps. Wire models (cluster, host, infra-env as the upstream API shows them)
 * are built from these by the API layer; here they carry only what identity, ownership and
 * concurrency control need, plus an open `attributes` bag that the API and lifecycle layers own.
 */

export type Role = 'admin' | 'user' | 'read-only';

/** Every persisted record carries the optimistic-concurrency version it was read at. */
export interface Versioned {
  /** Incremented by every successful write; a write that expects another value is rejected. */
  version: number;
}

/** A member as their organisation keeps them (domain/auth/organisation.ts). */
export interface OrganisationMember {
  role: Role;
  /** The verified email the member had when they joined, to show who they are. */
  email?: string;
  joinedAt: string;
}

export interface Organisation extends Versioned {
  orgId: string;
  name: string;
  createdAt: string;
  /**
   * The signed-in members by user id, with their roles: the organisation's own record of who
   * belongs, read and written with it, so that a rule over all members (the last admin stays) is
   * decided on one consistent read and written conditionally on its version. Each member also has
   * a Membership (their side, read at sign-in); both change in one transaction. Absent on
   * organisations made before members were kept here: their members are the memberships that
   * name them.
   */
  members?: Record<string, OrganisationMember>;
}

export interface ApiToken extends Versioned {
  orgId: string;
  tokenId: string;
  name: string;
  role: Role;
  /** SHA-256 of the secret part; the secret itself is shown once and never stored. */
  secretHash: string;
  createdAt: string;
  expiresAt?: string;
  revokedAt?: string;
  /**
   * The signed-in user who made it for themselves: it acts with at most their current role, and
   * only while they are a member of its organisation. Absent: made by an API token (automation).
   */
  ownerUserId?: string;
  /** Requests refused with this token's id (a wrong secret, or revoked, expired, owner gone), counted; never listed. */
  refusals?: { count: number; lastMinute: string };
}

/**
 * An invitation to join an organisation: a single-use code, shown once to the inviter, stored as
 * its SHA-256 only; accepted by a signed-in person whose verified email is `email`.
 */
export interface Invitation extends Versioned {
  orgId: string;
  invitationId: string;
  email: string;
  role: Role;
  secretHash: string;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
  acceptedAt?: string;
  acceptedBy?: string;
  revokedAt?: string;
}

/**
 * A person signed in through the identity provider, keyed by issuer and subject (`userId`,
 * domain/auth/identity.ts `userIdOf`). Not in any organisation's partition: their membership says where
 * they belong.
 */
export interface User extends Versioned {
  userId: string;
  issuer: string;
  subject: string;
  /** From the token that created the record, when it carried a verified one. */
  email?: string;
  createdAt: string;
}

/**
 * Where a user belongs and with which role (as API tokens' roles). One per user: a user belongs to
 * one organisation at a time, as in OCM. The organisation's `members` says the same; both are
 * written in one transaction. A user without one (removed from their organisation) is given a
 * personal organisation by their next request (usecases/users.ts).
 */
export interface Membership extends Versioned {
  userId: string;
  orgId: string;
  role: Role;
  createdAt: string;
}

export interface Cluster extends Versioned {
  orgId: string;
  clusterId: string;
  name: string;
  status: Schemas['cluster']['status'];
  createdAt: string;
  updatedAt: string;
  /** Never part of any response, log or event; `pull_secret_set` says whether there is one. */
  pullSecret?: string;
  attributes: ClusterAttributes;
}

export interface InfraEnv extends Versioned {
  orgId: string;
  infraEnvId: string;
  name: string;
  clusterId?: string;
  createdAt: string;
  updatedAt: string;
  /** Never part of any response, log or event. */
  pullSecret: string;
  /** Per-infra-env HMAC key signing image URLs; replacing it invalidates every URL issued before. */
  imageTokenKey: string;
  /**
   * The epoch of its agent tokens (absent: 0): regenerating the signing key moves it on, and the
   * tokens of earlier epochs are superseded (domain/auth/agent-token.ts).
   */
  agentTokenEpoch?: number;
  /**
   * The members who were handed its credentials (an image URL, discovery.ign, a pre-signed file
   * URL): its signing key is replaced when one of them leaves or becomes read-only.
   */
  credentialHolders?: string[];
  attributes: InfraEnvAttributes;
}

export interface Host extends Versioned {
  orgId: string;
  infraEnvId: string;
  hostId: string;
  clusterId?: string;
  status: Schemas['host']['status'];
  createdAt: string;
  updatedAt: string;
  /**
   * Set while the host is in a state the monitors must watch; cleared otherwise so the
   * sparse active-hosts index holds only those hosts.
   */
  monitorShard?: number;
  attributes: HostAttributes;
}

export type EventSeverity = 'info' | 'warning' | 'error' | 'critical';

export interface ServiceEvent {
  orgId: string;
  eventId: string;
  name: string;
  severity: EventSeverity;
  /** `audit`: who did what to the organisation's access (members, invitations, tokens, sign-in failures); admins only. */
  category: 'user' | 'metrics' | 'audit';
  message: string;
  eventTime: string;
  clusterId?: string;
  hostId?: string;
  infraEnvId?: string;
  props?: Record<string, unknown>;
}

export interface Manifest extends Versioned {
  orgId: string;
  clusterId: string;
  folder: string;
  fileName: string;
  source: 'user' | 'system';
  /** S3 key of the manifest's content. */
  objectKey: string;
  createdAt: string;
}

export interface WorkflowExecution extends Versioned {
  orgId: string;
  clusterId: string;
  workflow: string;
  executionArn: string;
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED' | 'TIMED_OUT';
  startedAt: string;
  stoppedAt?: string;
}

/**
 * A stored record's attributes: upstream's fields as the wire carries them (contracts/api.ts), which
 * the API shows as stored, and the service's own bookkeeping, which never leaves it. Fields named at
 * run time (by a catalogue or a request's keys) are read through the index signature as `unknown`.
 */
type Attributes<WireRecord> = { [Field in keyof WireRecord]?: WireRecord[Field] | undefined } & { [field: string]: unknown };

/** A DNS record the install workflow created for the cluster, to remove again on reset or delete. */
export interface StoredDnsRecord {
  name: string;
  type: 'A' | 'AAAA';
}

/** Upstream `cluster` fields (networking, versions, …) and the service's own. */
export type ClusterAttributes = Attributes<Omit<Schemas['cluster'], 'hosts'>> & {
  /** The outcome of the last install preparation (upstream's last-installation-preparation). */
  last_installation_preparation?: Schemas['last-installation-preparation'];
  dns_records?: StoredDnsRecord[];
};

/** Upstream `infra-env` fields and the service's own. */
export type InfraEnvAttributes = Attributes<Schemas['infra-env']>;

/** Upstream `host` fields and the service's own. */
export type HostAttributes = Attributes<Schemas['host']> & {
  /** The host's container image pulls by image (a JSON object of upstream's container_image_availability). */
  images_status?: string;
};

/** How upstream's answers spell a time never set: Go's zero time. */
export const UNSET_TIME = '0001-01-01T00:00:00.000Z';
