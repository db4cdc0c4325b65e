import type { APIGatewayProxyResult } from 'aws-lambda';
import { json, noContent } from '../../../platform/http.js';
import {
  acceptInvitation,
  changeMemberRole,
  createInvitation,
  getOrganisation,
  listInvitations,
  listMembers,
  removeMember,
  renameOrganisation,
  revokeInvitation,
} from '../../../usecases/organisations.js';
import { requireSignedInUser, type UserPrincipal } from '../../../usecases/principal.js';
import type { Operation, OperationHandlers, OperationId, OperationRequest } from '../context.js';
import { pathParam } from '../params.js';

/** Organisations are for people and their API tokens: every operation here first refuses the discovery agent. */
function forPeople<Id extends OperationId>(operation: (request: OperationRequest<Id> & { principal: UserPrincipal }) => Promise<APIGatewayProxyResult>): Operation<Id> {
  return async (request) => {
    requireSignedInUser(request.principal);
    return operation({ ...request, principal: request.principal });
  };
}

/** The organisation the path names. */
const organisationIn = (api: OperationRequest['api']) => pathParam(api, 'organization_id');

/** The organizations tag's operations (our extension), merged into the operations map by operations/index.ts. */
export const organisationOperations = {
  ListOrganizations: forPeople(async ({ principal, ports }) => json(200, [await getOrganisation(ports, principal, principal.orgId)])),
  GetOrganization: forPeople(async ({ api, principal, ports }) => json(200, await getOrganisation(ports, principal, organisationIn(api)))),
  UpdateOrganization: forPeople(async ({ api, body, principal, ports }) => json(200, await renameOrganisation(ports, principal, organisationIn(api), body.name))),
  ListOrganizationMembers: forPeople(async ({ api, principal, ports }) => json(200, await listMembers(ports, principal, organisationIn(api)))),
  UpdateOrganizationMember: forPeople(async ({ api, body, principal, ports }) =>
    json(200, await changeMemberRole(ports, principal, organisationIn(api), pathParam(api, 'user_id'), body.role))),
  RemoveOrganizationMember: forPeople(async ({ api, principal, ports }) => {
    await removeMember(ports, principal, organisationIn(api), pathParam(api, 'user_id'));
    return noContent();
  }),
  ListOrganizationInvitations: forPeople(async ({ api, principal, ports }) => json(200, await listInvitations(ports, principal, organisationIn(api)))),
  CreateOrganizationInvitation: forPeople(async ({ api, body, principal, ports }) =>
    json(201, await createInvitation(ports, principal, organisationIn(api), { email: body.email, role: body.role ?? 'user' }))),
  RevokeOrganizationInvitation: forPeople(async ({ api, principal, ports }) => {
    await revokeInvitation(ports, principal, organisationIn(api), pathParam(api, 'invitation_id'));
    return noContent();
  }),
  AcceptOrganizationInvitation: forPeople(async ({ body, principal, ports }) => json(200, await acceptInvitation(ports, principal, body.code))),
} satisfies Partial<OperationHandlers>;
