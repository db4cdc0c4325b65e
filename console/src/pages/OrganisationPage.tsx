import React from 'react';
import {
  ActionGroup,
  Alert,
  Button,
  ClipboardCopy,
  Content,
  Form,
  FormGroup,
  FormSelect,
  FormSelectOption,
  Label,
  PageSection,
  TextInput,
  Title,
} from '@patternfly/react-core';
import { Table, Tbody, Td, Tr } from '@patternfly/react-table';
import { HeadWithActions, RowAction } from '../components/ListTable';
import { JOIN_PATH } from '../routes';
import { apiRequest } from '../session';

type Role = 'admin' | 'user' | 'read-only';
type Organisation = { id: string; name: string; role: Role; member_count: number; created_at: string };
type Member = { user_id: string; email?: string; role: Role; joined_at: string };
type Invitation = { id: string; email: string; role: Role; status: string; invited_by: string; expires_at: string };

const ROLES: Role[] = ['admin', 'user', 'read-only'];
const when = (timestamp: string) => new Date(timestamp).toLocaleString();

/** The organisation: its name, its members and their roles, and (for admins) its invitations. */
export const OrganisationPage: React.FC = () => {
  const [organisation, setOrganisation] = React.useState<Organisation>();
  const [members, setMembers] = React.useState<Member[]>([]);
  const [invitations, setInvitations] = React.useState<Invitation[]>([]);
  const [error, setError] = React.useState<string>();
  const [name, setName] = React.useState('');
  const [email, setEmail] = React.useState('');
  const [role, setRole] = React.useState<Role>('user');
  const [joinLink, setJoinLink] = React.useState<string>();

  const load = React.useCallback(async () => {
    try {
      const [current] = await apiRequest<Organisation[]>('GET', '/v2/organizations');
      if (!current) return;
      setOrganisation(current);
      setName(current.name);
      const base = `/v2/organizations/${encodeURIComponent(current.id)}`;
      setMembers(await apiRequest<Member[]>('GET', `${base}/members`));
      setInvitations(current.role === 'admin' ? await apiRequest<Invitation[]>('GET', `${base}/invitations`) : []);
    } catch (failure) {
      setError((failure as Error).message);
    }
  }, []);
  React.useEffect(() => void load(), [load]);

  const act = async (what: string, action: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await action();
      await load();
    } catch (failure) {
      setError(`Could not ${what}: ${(failure as Error).message}`);
    }
  };

  if (!organisation) return <PageSection>{error ? <Alert variant="danger" isInline title={error} /> : null}</PageSection>;
  const base = `/v2/organizations/${encodeURIComponent(organisation.id)}`;
  const admin = organisation.role === 'admin';
  return (
    <>
      <PageSection>
        <Title headingLevel="h1" data-testid="organisation-name">
          {organisation.name}
        </Title>
        <Content component="p">
          Your role: <Label data-testid="own-role">{organisation.role}</Label> · {organisation.member_count} member(s) · id <code>{organisation.id}</code>
        </Content>
        {error && (
          <Alert variant="danger" isInline title="The API refused" data-testid="organisation-error" className="pf-v6-u-my-md">
            {error}
          </Alert>
        )}
        {admin && (
          <Form isHorizontal onSubmit={(event) => { event.preventDefault(); void act('rename the organisation', () => apiRequest('PATCH', base, { name })); }}>
            <FormGroup label="Name" fieldId="organisation-name-input">
              <TextInput id="organisation-name-input" value={name} onChange={(_event, value) => setName(value)} />
            </FormGroup>
            <ActionGroup>
              <Button type="submit" variant="secondary">Rename</Button>
            </ActionGroup>
          </Form>
        )}
      </PageSection>
      <PageSection>
        <Title headingLevel="h2">Members</Title>
        <Table aria-label="Members" data-testid="members">
          <HeadWithActions columns={['Email', 'Role', 'Joined']} />
          <Tbody>
            {members.map((member) => (
              <Tr key={member.user_id} data-testid={`member-${member.email ?? member.user_id}`}>
                <Td dataLabel="Email">{member.email ?? member.user_id}</Td>
                <Td dataLabel="Role">
                  {admin ? (
                    <FormSelect
                      aria-label={`Role of ${member.email ?? member.user_id}`}
                      value={member.role}
                      onChange={(_event, value) => void act('change the role', () => apiRequest('PATCH', `${base}/members/${member.user_id}`, { role: value }))}
                    >
                      {ROLES.map((option) => <FormSelectOption key={option} value={option} label={option} />)}
                    </FormSelect>
                  ) : (
                    member.role
                  )}
                </Td>
                <Td dataLabel="Joined">{when(member.joined_at)}</Td>
                <RowAction label="Remove" shown={admin} onClick={() => void act('remove the member', () => apiRequest('DELETE', `${base}/members/${member.user_id}`))} />
              </Tr>
            ))}
          </Tbody>
        </Table>
      </PageSection>
      {admin && (
        <PageSection>
          <Title headingLevel="h2">Invitations</Title>
          <Form
            onSubmit={(event) => {
              event.preventDefault();
              void act('invite', async () => {
                const created = await apiRequest<Invitation & { code: string }>('POST', `${base}/invitations`, { email: email.trim(), role });
                setJoinLink(`${window.location.origin}${JOIN_PATH}#${encodeURIComponent(created.code)}`);
                setEmail('');
              });
            }}
          >
            <FormGroup label="Email" isRequired fieldId="invite-email">
              <TextInput id="invite-email" type="email" value={email} onChange={(_event, value) => setEmail(value)} isRequired />
            </FormGroup>
            <FormGroup label="Role" fieldId="invite-role">
              <FormSelect id="invite-role" value={role} onChange={(_event, value) => setRole(value as Role)}>
                {ROLES.map((option) => <FormSelectOption key={option} value={option} label={option} />)}
              </FormSelect>
            </FormGroup>
            <ActionGroup>
              <Button type="submit" variant="primary">Invite</Button>
            </ActionGroup>
          </Form>
          {joinLink && (
            <Alert variant="info" isInline title="Send this link to the person you invited. It is shown once, works once, and expires in 7 days." className="pf-v6-u-my-md">
              <ClipboardCopy isReadOnly data-testid="join-link">{joinLink}</ClipboardCopy>
            </Alert>
          )}
          <Table aria-label="Invitations" data-testid="invitations">
            <HeadWithActions columns={['Email', 'Role', 'Status', 'Expires']} />
            <Tbody>
              {invitations.map((invitation) => (
                <Tr key={invitation.id}>
                  <Td dataLabel="Email">{invitation.email}</Td>
                  <Td dataLabel="Role">{invitation.role}</Td>
                  <Td dataLabel="Status">{invitation.status}</Td>
                  <Td dataLabel="Expires">{when(invitation.expires_at)}</Td>
                  <RowAction
                    label="Withdraw"
                    shown={invitation.status === 'pending'}
                    onClick={() => void act('withdraw the invitation', () => apiRequest('DELETE', `${base}/invitations/${invitation.id}`))}
                  />
                </Tr>
              ))}
            </Tbody>
          </Table>
        </PageSection>
      )}
    </>
  );
};
