/**
 * Who was handed an infra-env's credentials, so that they stop working when that person's
 * membership does. An image URL, a discovery.ign or a pre-signed file URL carries an agent token
 * (or an image token) that is the infra-env's, not the person's: once a person who received one is
 * removed from the organisation, or made read-only, the infra-env's signing key is replaced, which
 * supersedes every agent token and image URL issued before (docs/api.md, "When a membership ends").
 * Installations already under way go on, as they do after any key regeneration.
 */
import type { InfraEnv } from '../domain/core/entities.js';
import { replacing, type Store, type StoreWrite } from '../ports/store.js';
import { agentTokenEpochOf } from './agent-tokens.js';
import { newSecret } from './credential-secrets.js';
import type { Principal } from './principal.js';

/** A new key for an infra-env's image URLs (HMAC): 32 random bytes, made as every other secret of ours. */
export const newImageTokenKey = newSecret;

/** The member a caller acts for: a signed-in person, or a member's own API token. Automation tokens belong to no member. */
export function memberActingFor(principal: Principal): string | undefined {
  if (principal.kind !== 'user') return undefined;
  return principal.userId ?? principal.ownerUserId;
}

/**
 * Records that the caller's member is about to receive the infra-env's credentials. Written once
 * per person and infra-env (a conditional write); the record as read is returned when nothing changes.
 */
export async function noteCredentialHolder(deps: { store: Store }, principal: Principal, infraEnv: InfraEnv): Promise<InfraEnv> {
  const member = memberActingFor(principal);
  if (member === undefined || infraEnv.credentialHolders?.includes(member)) return infraEnv;
  const updated = await deps.store.infraEnvs.mutate(
    { orgId: infraEnv.orgId, infraEnvId: infraEnv.infraEnvId },
    (current) => (current.credentialHolders?.includes(member) ? undefined : { ...current, credentialHolders: [...(current.credentialHolders ?? []), member] }),
    infraEnv,
  );
  return updated ?? infraEnv;
}

/**
 * The infra-env with a new signing key: a new image token key (earlier image URLs stop working),
 * the next agent token epoch (earlier agent tokens are superseded) and no recorded image URL.
 */
export function withNewSigningKey(infraEnv: InfraEnv, withoutHolder?: string): InfraEnv {
  const next: InfraEnv = {
    ...infraEnv,
    imageTokenKey: newImageTokenKey(),
    agentTokenEpoch: agentTokenEpochOf(infraEnv) + 1,
    attributes: { ...infraEnv.attributes },
  };
  delete next.attributes.download_url;
  delete next.attributes.expires_at;
  if (withoutHolder !== undefined) next.credentialHolders = (infraEnv.credentialHolders ?? []).filter((holder) => holder !== withoutHolder);
  return next;
}

/** A transaction takes 100 writes; the membership change takes two of them. */
const TRANSACTION_ROOM = 98;

/**
 * The writes that replace the signing key of every infra-env of the organisation the member was
 * handed credentials of, for the transaction that ends or narrows the membership. Beyond what a
 * transaction holds, the rest are replaced at once, before it: a change that then fails has only
 * replaced keys early, which is the safe side.
 */
export async function supersedingCredentialsOf(
  deps: { store: Store },
  orgId: string,
  member: string,
): Promise<{ writes: StoreWrite[]; infraEnvIds: string[] }> {
  const held = (await deps.store.infraEnvs.listByOrg(orgId)).filter((infraEnv) => infraEnv.credentialHolders?.includes(member));
  for (const infraEnv of held.slice(TRANSACTION_ROOM)) {
    await deps.store.infraEnvs.mutate({ orgId, infraEnvId: infraEnv.infraEnvId }, (current) => withNewSigningKey(current, member), infraEnv);
  }
  return {
    writes: held.slice(0, TRANSACTION_ROOM).map((infraEnv) => replacing(deps.store.infraEnvs, withNewSigningKey(infraEnv, member))),
    infraEnvIds: held.map((infraEnv) => infraEnv.infraEnvId),
  };
}
