import React from 'react';
import {
  ActionGroup,
  Alert,
  Button,
  AlertActionCloseButton,
  ClipboardCopy,
  Content,
  EmptyState,
  EmptyStateBody,
  Form,
  FormGroup,
  FormSelect,
  FormSelectOption,
  Label,
  Modal,
  ModalBody,
  ModalFooter,
  ModalHeader,
  PageSection,
  TextInput,
  Title,
} from '@patternfly/react-core';
import { Table, Tbody, Td, Tr } from '@patternfly/react-table';
import { useCaller, type Role } from '../caller';
import { HeadWithActions, RowAction } from '../components/ListTable';
import { JOIN_PATH } from '../routes';
import { apiRequest } from '../session';

type Member = { user_id: string; email?: string; role: Role; joined_at: string };
type Invitation = { id: string; email: string; role: Role; status: string; invited_by: string; expires_at: string };

const ROLES: Role[] = ['admin', 'user', 'read-only'];
const when = (timestamp: string) => new Date(timestamp).toLocaleString();
const nameOf = (member: Member) => member.email ?? member.user_id;

/** A row of a table with no rows: what is missing and how it comes. */
const EmptyRow: React.FC<{ columns: number; testId: string; children: React.ReactNode }> = ({ columns, testId, children }) => (
  <Tr>
    <Td colSpan={columns}>
      <EmptyState variant="xs" data-testid={testId}>
        <EmptyStateBody>{children}</EmptyStateBody>
      </EmptyState>
    </Td>
  </Tr>
);

/**
 * Why a member's role or membership cannot change from this page, or nothing. The API refuses the
 * last admin of an organisation with other members leaving or stopping being an admin; the console
 * does not offer either to an organisation's only admin at all, since an organisation nobody
 * administers can never invite or change roles again.
 */
function onlyAdminReason(member: Member, members: Member[]): string | undefined {
  if (member.role !== 'admin' || members.some((other) => other.user_id !== member.user_id && other.role === 'admin')) return undefined;
  return 'The only admin cannot leave or stop being an admin: make another member an admin first';
}

/** The organisation: its name, its members and their roles, and (for admins) its invitations. */
export const OrganisationPage: React.FC = () => {
  const { caller, reload: reloadCaller } = useCaller();
  const organisation = caller.organisation;
  const [members, setMembers] = React.useState<Member[]>();
  const [invitations, setInvitations] = React.useState<Invitation[]>([]);
  const [error, setError] = React.useState<string>();
  const [name, setName] = React.useState('');
  const [email, setEmail] = React.useState('');
  const [role, setRole] = React.useState<Role>('user');
  const [joinLink, setJoinLink] = React.useState<string>();
  const [success, setSuccess] = React.useState<string>();
  /** A role change waiting for its confirmation. */
  const [roleChange, setRoleChange] = React.useState<{ member: Member; role: Role }>();
  /** A removal (or the caller leaving) waiting for its confirmation. */
  const [removal, setRemoval] = React.useState<Member>();

  const base = `/v2/organizations/${encodeURIComponent(organisation.id)}`;
  const admin = caller.isAdmin;
  React.useEffect(() => setName(organisation.name), [organisation.name]);
  const load = React.useCallback(async () => {
    try {
      setMembers(await apiRequest<Member[]>('GET', `${base}/members`));
      setInvitations(admin ? await apiRequest<Invitation[]>('GET', `${base}/invitations`) : []);
    } catch (failure) {
      setError((failure as Error).message);
    }
  }, [base, admin]);
  React.useEffect(() => void load(), [load]);

  /** Runs a change, then reads the organisation (the header's too) and its lists again. */
  const act = async (what: string, action: () => Promise<unknown>, done?: string) => {
    setError(undefined);
    setSuccess(undefined);
    try {
      await action();
      await reloadCaller();
      await load();
      // Said once the page shows the change.
      if (done) setSuccess(done);
    } catch (failure) {
      setError(`Could not ${what}: ${(failure as Error).message}`);
    }
  };

  const isCaller = (member: Member) => member.user_id === organisation.user_id;
  const memberList = members ?? [];
  return (
    <>
      <PageSection>
        <Title headingLevel="h1" data-testid="organisation-name">
          {organisation.name}
        </Title>
        <Content component="p">
          Your role: <Label data-testid="own-role">{organisation.role}</Label> ·{' '}
          {organisation.member_count === 1 ? '1 member' : `${organisation.member_count} members`} · id <code>{organisation.id}</code>
        </Content>
        {success && (
          <Alert
            variant="success"
            isInline
            title={success}
            data-testid="organisation-success"
            className="pf-v6-u-my-md"
            actionClose={<AlertActionCloseButton onClose={() => setSuccess(undefined)} />}
          />
        )}
        {error && (
          <Alert variant="danger" isInline title="The API refused" data-testid="organisation-error" className="pf-v6-u-my-md">
            {error}
          </Alert>
        )}
        {admin && (
          <Form
            isHorizontal
            onSubmit={(event) => {
              event.preventDefault();
              void act('rename the organisation', () => apiRequest('PATCH', base, { name }), `The organisation is now called "${name.trim()}".`);
            }}
          >
            <FormGroup label="Name" fieldId="organisation-name-input">
              <TextInput id="organisation-name-input" value={name} onChange={(_event, value) => setName(value)} />
            </FormGroup>
            <ActionGroup>
              <Button type="submit" variant="secondary">
                Rename
              </Button>
            </ActionGroup>
          </Form>
        )}
      </PageSection>
      <PageSection>
        <Title headingLevel="h2">Members</Title>
        <Table aria-label="Members" data-testid="members">
          <HeadWithActions columns={['Email', 'Role', 'Joined']} />
          <Tbody>
            {members && members.length === 0 && (
              <EmptyRow columns={4} testId="members-empty">
                No members yet. People join through an invitation{admin ? ' (below)' : " from one of the organisation's admins"}; API tokens are not members.
              </EmptyRow>
            )}
            {memberList.map((member) => {
              const onlyAdmin = onlyAdminReason(member, memberList);
              const you = isCaller(member);
              return (
                <Tr key={member.user_id} data-testid={`member-${nameOf(member)}`}>
                  <Td dataLabel="Email">
                    {nameOf(member)}
                    {you && (
                      <Label isCompact color="blue" className="pf-v6-u-ml-sm" data-testid="member-you">
                        you
                      </Label>
                    )}
                  </Td>
                  <Td dataLabel="Role">
                    {admin ? (
                      <FormSelect
                        aria-label={`Role of ${nameOf(member)}`}
                        value={member.role}
                        isDisabled={onlyAdmin !== undefined}
                        title={onlyAdmin}
                        onChange={(_event, value) => setRoleChange({ member, role: value as Role })}
                      >
                        {ROLES.map((option) => (
                          <FormSelectOption key={option} value={option} label={option} />
                        ))}
                      </FormSelect>
                    ) : (
                      member.role
                    )}
                    {admin && onlyAdmin && (
                      <Content component="small" className="pf-v6-u-display-block pf-v6-u-text-color-subtle" data-testid="only-admin-reason">
                        {onlyAdmin}
                      </Content>
                    )}
                  </Td>
                  <Td dataLabel="Joined">{when(member.joined_at)}</Td>
                  <RowAction label={you ? 'Leave' : 'Remove'} shown={(admin || you) && onlyAdmin === undefined} onClick={() => setRemoval(member)} />
                </Tr>
              );
            })}
          </Tbody>
        </Table>
      </PageSection>
      {admin && (
        <PageSection>
          <Title headingLevel="h2">Invitations</Title>
          <Form
            onSubmit={(event) => {
              event.preventDefault();
              void act(
                'invite',
                async () => {
                  const created = await apiRequest<Invitation & { code: string }>('POST', `${base}/invitations`, { email: email.trim(), role });
                  setJoinLink(`${window.location.origin}${JOIN_PATH}#${encodeURIComponent(created.code)}`);
                  setEmail('');
                },
                `${email.trim()} is invited as ${role}.`,
              );
            }}
          >
            <FormGroup label="Email" isRequired fieldId="invite-email">
              <TextInput id="invite-email" type="email" value={email} onChange={(_event, value) => setEmail(value)} isRequired />
            </FormGroup>
            <FormGroup label="Role" fieldId="invite-role">
              <FormSelect id="invite-role" value={role} onChange={(_event, value) => setRole(value as Role)}>
                {ROLES.map((option) => (
                  <FormSelectOption key={option} value={option} label={option} />
                ))}
              </FormSelect>
            </FormGroup>
            <ActionGroup>
              <Button type="submit" variant="primary">
                Invite
              </Button>
            </ActionGroup>
          </Form>
          {joinLink && (
            <Alert
              variant="info"
              isInline
              title="Send this link to the person you invited. It is shown once, works once, and expires in 7 days."
              className="pf-v6-u-my-md"
            >
              <ClipboardCopy isReadOnly data-testid="join-link">
                {joinLink}
              </ClipboardCopy>
            </Alert>
          )}
          <Table aria-label="Invitations" data-testid="invitations">
            <HeadWithActions columns={['Email', 'Role', 'Status', 'Expires']} />
            <Tbody>
              {invitations.length === 0 && (
                <EmptyRow columns={5} testId="invitations-empty">
                  No invitations. Invite a person by email above: they get a join link to open while signed in with that address.
                </EmptyRow>
              )}
              {invitations.map((invitation) => (
                <Tr key={invitation.id}>
                  <Td dataLabel="Email">{invitation.email}</Td>
                  <Td dataLabel="Role">{invitation.role}</Td>
                  <Td dataLabel="Status">{invitation.status}</Td>
                  <Td dataLabel="Expires">{when(invitation.expires_at)}</Td>
                  <RowAction
                    label="Withdraw"
                    shown={invitation.status === 'pending'}
                    onClick={() =>
                      void act(
                        'withdraw the invitation',
                        () => apiRequest('DELETE', `${base}/invitations/${invitation.id}`),
                        `The invitation for ${invitation.email} is withdrawn.`,
                      )
                    }
                  />
                </Tr>
              ))}
            </Tbody>
          </Table>
        </PageSection>
      )}
      <Modal
        variant="small"
        isOpen={roleChange !== undefined}
        onClose={() => setRoleChange(undefined)}
        aria-labelledby="role-change-title"
        data-testid="role-change-dialog"
      >
        <ModalHeader title={`Make ${roleChange ? nameOf(roleChange.member) : ''} ${roleChange?.role ?? ''}?`} labelId="role-change-title" />
        <ModalBody>
          {roleChange && (
            <>
              {isCaller(roleChange.member) ? 'Your role' : 'Their role'} changes from <strong>{roleChange.member.role}</strong> to{' '}
              <strong>{roleChange.role}</strong> from the next request on, for the API tokens {isCaller(roleChange.member) ? 'you' : 'they'} made too.
            </>
          )}
        </ModalBody>
        <ModalFooter>
          <Button
            variant="primary"
            onClick={() => {
              const change = roleChange;
              setRoleChange(undefined);
              if (change) {
                void act(
                  'change the role',
                  () => apiRequest('PATCH', `${base}/members/${change.member.user_id}`, { role: change.role }),
                  `${nameOf(change.member)} is now ${change.role}.`,
                );
              }
            }}
          >
            Change role
          </Button>
          <Button variant="link" onClick={() => setRoleChange(undefined)}>
            Cancel
          </Button>
        </ModalFooter>
      </Modal>
      <Modal variant="small" isOpen={removal !== undefined} onClose={() => setRemoval(undefined)} aria-labelledby="removal-title" data-testid="removal-dialog">
        <ModalHeader
          title={removal && isCaller(removal) ? `Leave ${organisation.name}?` : `Remove ${removal ? nameOf(removal) : ''}?`}
          labelId="removal-title"
          titleIconVariant="warning"
        />
        <ModalBody>
          {removal && isCaller(removal)
            ? 'You lose access to its clusters, and the API tokens you made for it stop working. Your next sign-in gets an organisation of your own.'
            : 'They lose access to its clusters, and the API tokens they made for it stop working.'}
        </ModalBody>
        <ModalFooter>
          <Button
            variant="danger"
            onClick={() => {
              const member = removal;
              setRemoval(undefined);
              if (member) {
                void act('remove the member', () => apiRequest('DELETE', `${base}/members/${member.user_id}`), `${nameOf(member)} is no longer a member.`);
              }
            }}
          >
            {removal && isCaller(removal) ? 'Leave' : 'Remove'}
          </Button>
          <Button variant="link" onClick={() => setRemoval(undefined)}>
            Cancel
          </Button>
        </ModalFooter>
      </Modal>
    </>
  );
};
