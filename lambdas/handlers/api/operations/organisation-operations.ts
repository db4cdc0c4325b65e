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
import type { Operation, OperationId } from '../context.js';
import { pathParam } from '../params.js';

/**
 * The organizations tag's operations (our extension), merged into the operations map by
 * operations/index.ts, which admits only people here (access 'people'): never the discovery agent.
 */
export const organisationOperations = {
  ListOrganizations: async ({ principal, ports }) => json(200, [await getOrganisation(ports, principal, principal.orgId)]),
  GetOrganization: async ({ api, principal, ports }) => json(200, await getOrganisation(ports, principal, pathParam(api, 'organization_id'))),
  UpdateOrganization: async ({ api, body, principal, ports }) =>
    json(200, await renameOrganisation(ports, principal, pathParam(api, 'organization_id'), body.name)),
  ListOrganizationMembers: async ({ api, principal, ports }) => json(200, await listMembers(ports, principal, pathParam(api, 'organization_id'))),
  UpdateOrganizationMember: async ({ api, body, principal, ports }) =>
    json(200, await changeMemberRole(ports, principal, pathParam(api, 'organization_id'), pathParam(api, 'user_id'), body.role)),
  RemoveOrganizationMember: async ({ api, principal, ports }) => {
    await removeMember(ports, principal, pathParam(api, 'organization_id'), pathParam(api, 'user_id'));
    return noContent();
  },
  ListOrganizationInvitations: async ({ api, principal, ports }) => json(200, await listInvitations(ports, principal, pathParam(api, 'organization_id'))),
  CreateOrganizationInvitation: async ({ api, body, principal, ports }) =>
    json(201, await createInvitation(ports, principal, pathParam(api, 'organization_id'), { email: body.email, role: body.role ?? 'user' })),
  RevokeOrganizationInvitation: async ({ api, principal, ports }) => {
    await revokeInvitation(ports, principal, pathParam(api, 'organization_id'), pathParam(api, 'invitation_id'));
    return noContent();
  },
  AcceptOrganizationInvitation: async ({ body, principal, ports }) => json(200, await acceptInvitation(ports, principal, body.code)),
} satisfies { [Id in OperationId]?: Operation<Id, 'people'> };
