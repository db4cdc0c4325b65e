/**
 * Each operation declares who may call it once, in handlers/api/operations/index.ts, and the router
 * checks it before the handler runs (authorize). The declarations must agree with openapi.yaml's
 * security, which says which credentials reach the operation at all: an agent-only operation the
 * agent's credentials cannot reach, or a public one with credentials, would be a contradiction.
 * test/integration/privilege-matrix.test.ts calls every operation as every kind of caller.
 */
import { describe, expect, it } from 'vitest';
import { loadOpenApiDocument } from '../../lambdas/handlers/api/openapi-document.js';
import { operations, publicOperations } from '../../lambdas/handlers/api/operations/index.js';
import { DomainError } from '../../lambdas/domain/core/errors.js';
import { authorize, type Access, type Principal } from '../../lambdas/usecases/principal.js';

type Security = Record<string, unknown>[];
const document = loadOpenApiDocument() as { security?: Security; paths: Record<string, Record<string, { operationId?: string; security?: Security }>> };
const schemesOf = new Map(
  Object.values(document.paths).flatMap((item) =>
    Object.values(item).flatMap((operation) =>
      operation.operationId
        ? [[operation.operationId, new Set((operation.security ?? document.security ?? []).flatMap((requirement) => Object.keys(requirement)))] as const]
        : [],
    ),
  ),
);

describe('the access each operation declares', () => {
  it('is declared for operations openapi.yaml has, agreeing with its security', () => {
    const disagreements: string[] = [];
    for (const [operationId, entry] of Object.entries(operations)) {
      const schemes = schemesOf.get(operationId);
      if (!schemes) {
        disagreements.push(`${operationId} is not in openapi.yaml`);
        continue;
      }
      const agentsReach = schemes.has('agentAuth');
      const peopleReach = schemes.has('userAuth');
      if (entry!.access === 'agent' && !agentsReach) disagreements.push(`${operationId}: 'agent', but agents cannot authenticate`);
      if ((entry!.access === 'write' || entry!.access === 'people') && !peopleReach)
        disagreements.push(`${operationId}: '${entry!.access}', but people cannot authenticate`);
      if (schemes.size === 0) disagreements.push(`${operationId}: openapi.yaml makes it public`);
    }
    for (const operationId of Object.keys(publicOperations)) {
      if (schemesOf.get(operationId)?.size !== 0) disagreements.push(`${operationId}: declared public, but openapi.yaml asks for credentials`);
    }
    expect(disagreements).toEqual([]);
  });

  it('admits each kind of caller as the access says, refusing in the words the handlers used', () => {
    const callers: Record<string, Principal> = {
      'read-only token': { kind: 'user', orgId: 'o', role: 'read-only', tokenId: 't' },
      'user token': { kind: 'user', orgId: 'o', role: 'user', tokenId: 't' },
      'read-only member': { kind: 'user', orgId: 'o', role: 'read-only', userId: 'u' },
      agent: { kind: 'agent', orgId: 'o', infraEnvId: 'i' },
    };
    const outcome = (principal: Principal, access: Access) => {
      try {
        authorize(principal, access);
        return 'admitted';
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return `${error.kind}: ${error.message}`;
      }
    };
    const table = Object.fromEntries(
      Object.entries(callers).map(([who, principal]) => [
        who,
        Object.fromEntries((['read', 'write', 'people', 'agent', 'agent or write'] as const).map((access) => [access, outcome(principal, access)])),
      ]),
    );
    expect(table).toEqual({
      'read-only token': {
        read: 'admitted',
        write: "forbidden: This token's role may not write",
        people: 'admitted',
        agent: 'forbidden: This operation is for the discovery agent, with its X-Secret-Key',
        'agent or write': "forbidden: This token's role may not write",
      },
      'user token': {
        read: 'admitted',
        write: 'admitted',
        people: 'admitted',
        agent: 'forbidden: This operation is for the discovery agent, with its X-Secret-Key',
        'agent or write': 'admitted',
      },
      'read-only member': {
        read: 'admitted',
        write: 'forbidden: Your role in the organisation may not write',
        people: 'admitted',
        agent: 'forbidden: This operation is for the discovery agent, with its X-Secret-Key',
        'agent or write': 'forbidden: Your role in the organisation may not write',
      },
      agent: {
        read: 'admitted',
        write: "forbidden: This token's role may not write",
        people: 'forbidden: This operation is for people and their API tokens, not for the discovery agent',
        agent: 'admitted',
        'agent or write': 'admitted',
      },
    });
  });
});
