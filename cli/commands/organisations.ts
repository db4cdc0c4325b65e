/**
 * `assisted orgs …`, `assisted members …`, `assisted invitations …`: the caller's organisation, its
 * members and their roles, and invitations (our extension of the API, /v2/organizations…).
 */
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { call, type ApiClient, type Schemas } from '../api.js';
import { CliError, EXIT } from '../exit-codes.js';
import { note, print } from '../output.js';
import { clientAndId, roleOption, type Cli, type Role } from './shared.js';

type Organisation = Schemas['organization'];
type Member = Schemas['organization-member'];
type Invitation = Schemas['organization-invitation'];
const USER_ID = /^[0-9a-f]{32}$/;

const orgOption = () => new Option('--org <id>', "the organisation's id (default: the caller's, from GET /v2/organizations)");

/** A subcommand about one organisation: its own options, then --org (default: the caller's organisation). */
function organisationCommand(group: Command, usage: string, description: string, ...options: Option[]): Command {
  const command = group.command(usage).description(description);
  for (const option of [...options, orgOption()]) command.addOption(option);
  return command;
}

/** The caller's organisation: a person or token belongs to one at a time, so the listing has one entry. */
async function callersOrganisation(api: ApiClient): Promise<Organisation> {
  const listed = await call('finding your organisation', () => api.GET('/v2/organizations'));
  if (listed.length === 1) return listed[0]!;
  throw new CliError(
    `the service lists ${listed.length} organisations for this login: name one with --org (${listed.map((o) => o.id).join(', ') || 'none'})`,
    EXIT.usage,
  );
}

async function organisationId(api: ApiClient, org: string | undefined): Promise<string> {
  return org ?? (await callersOrganisation(api)).id;
}

/** A member's user id, or the id of the one member with that email (people know emails, not ids). */
async function resolveMemberId(api: ApiClient, orgId: string, idOrEmail: string): Promise<string> {
  if (USER_ID.test(idOrEmail)) return idOrEmail;
  const members = await call(`listing the members of ${orgId}`, () =>
    api.GET('/v2/organizations/{organization_id}/members', { params: { path: { organization_id: orgId } } }),
  );
  const named = members.filter((member) => member.email?.toLowerCase() === idOrEmail.toLowerCase());
  if (named.length === 1) return named[0]!.user_id;
  throw new CliError(`no member of ${orgId} has the user id or email "${idOrEmail}" (see \`assisted members list\`)`, EXIT.apiRefused);
}

/** An invitation code as given: the code itself, the console's join link, or `-` for standard input. */
function invitationCode(given: string): string {
  const text = (given === '-' ? readFileSync(0, 'utf8') : given).trim();
  const hash = text.indexOf('#');
  return hash >= 0 ? text.slice(hash + 1) : text;
}

const joinLink = (url: string, code: string) => `${url.replace(/\/+$/, '')}/join#${code}`;

/** Who the login is, as the organisation's answer says: a person's email (or user id), else the API token's name. */
const callerName = (o: Organisation) =>
  o.email ?? o.user_id ?? (o.api_token_name !== undefined ? `API token "${o.api_token_name}" (${o.api_token_id ?? ''})` : '');

const organisationText = (o: Organisation) =>
  [
    `id:        ${o.id}`,
    `name:      ${o.name}`,
    `you:       ${callerName(o)}`,
    `your role: ${o.role}`,
    `members:   ${o.member_count}`,
    `created:   ${o.created_at}`,
  ].join('\n');

const memberRow = (m: Member, you?: string) => [m.user_id, m.email ?? '', m.role, m.joined_at, m.user_id === you ? 'you' : ''];
const MEMBER_HEADER = ['USER ID', 'EMAIL', 'ROLE', 'JOINED', ''];

/** `orgs show|rename|join` */
export function registerOrgs(program: Command, cli: Cli): void {
  const orgs = program.command('orgs').description('your organisation');

  organisationCommand(orgs, 'show', 'your organisation: id, name, who you are, your role, member count').action(async (options: { org?: string }) => {
    const api = cli.client();
    const organisation = options.org
      ? await call(`reading organisation ${options.org}`, () =>
          api.GET('/v2/organizations/{organization_id}', { params: { path: { organization_id: options.org! } } }),
        )
      : await callersOrganisation(api);
    print(cli.format(), organisation, organisationText);
  });

  organisationCommand(orgs, 'rename <name>', 'rename your organisation (admins)').action(async (name: string, options: { org?: string }) => {
    const { api, id: orgId } = await clientAndId(cli, options.org, organisationId);
    const renamed = await call(`renaming organisation ${orgId}`, () =>
      api.PATCH('/v2/organizations/{organization_id}', { params: { path: { organization_id: orgId } }, body: { name } }),
    );
    print(cli.format(), renamed, organisationText);
  });

  orgs
    .command('join <code>')
    .description(
      "join the organisation of an invitation made for your verified email, leaving your current one (CODE: the code, the join link, or - for standard input; needs a person's sign-in token, not an API token)",
    )
    .action(async (given: string) => {
      const code = invitationCode(given);
      if (!code) throw new CliError('no invitation code given', EXIT.usage);
      const joined = await call('joining with the invitation', () => cli.client().POST('/v2/organizations/join', { body: { code } }));
      print(
        cli.format(),
        joined,
        (o) => `${organisationText(o)}\n\nyou joined ${o.name} as ${o.role}; API tokens you made in your previous organisation, if any, stop working.`,
      );
    });
}

/** `members list|set-role|remove|leave` */
export function registerMembers(program: Command, cli: Cli): void {
  const members = program.command('members').description("your organisation's members and their roles");

  organisationCommand(members, 'list', 'the people who belong to your organisation, with their roles').action(async (options: { org?: string }) => {
    const api = cli.client();
    const own = await callersOrganisation(api);
    const orgId = options.org ?? own.id;
    const list = await call(`listing the members of ${orgId}`, () =>
      api.GET('/v2/organizations/{organization_id}/members', { params: { path: { organization_id: orgId } } }),
    );
    const you = own.user_id;
    print(cli.format(), list, (rows) => ({ header: MEMBER_HEADER, rows: rows.map((m) => memberRow(m, you)) }));
  });

  organisationCommand(
    members,
    'set-role <user>',
    "change a member's role (admins); USER is a user id or a member's email",
    roleOption('admin, user or read-only').makeOptionMandatory(),
  ).action(async (user: string, options: { role: Role; org?: string }) => {
    const { api, id: orgId } = await clientAndId(cli, options.org, organisationId);
    const userId = await resolveMemberId(api, orgId, user);
    const changed = await call(`changing the role of ${user}`, () =>
      api.PATCH('/v2/organizations/{organization_id}/members/{user_id}', {
        params: { path: { organization_id: orgId, user_id: userId } },
        body: { role: options.role },
      }),
    );
    print(cli.format(), changed, (m) => ({ header: MEMBER_HEADER, rows: [memberRow(m)] }));
  });

  organisationCommand(members, 'remove <user>', "remove a member (admins); their API tokens are revoked. USER is a user id or a member's email").action(
    async (user: string, options: { org?: string }) => {
      const { api, id: orgId } = await clientAndId(cli, options.org, organisationId);
      const userId = await resolveMemberId(api, orgId, user);
      await call(`removing ${user} from ${orgId}`, () =>
        api.DELETE('/v2/organizations/{organization_id}/members/{user_id}', { params: { path: { organization_id: orgId, user_id: userId } } }),
      );
      note(`${user} removed from ${orgId}; their API tokens of it are revoked`);
    },
  );

  organisationCommand(members, 'leave', 'leave your organisation (a person signed in through the identity provider; your API tokens of it are revoked)').action(
    async (options: { org?: string }) => {
      const api = cli.client();
      // The organisation answers a person with their own user id; an API token is no member, and the
      // API would take its DELETE as an admin removing someone, so nothing is sent in that case.
      const own = await callersOrganisation(api);
      const userId = own.user_id;
      if (!userId) {
        throw new CliError(
          'leaving needs a person signed in through the identity provider (their ID or access token as --token or ASSISTED_TOKEN); an API token is not a member and cannot leave. An admin removes members with `assisted members remove USER`',
          EXIT.usage,
        );
      }
      const orgId = options.org ?? own.id;
      await call(
        `leaving ${orgId}`,
        () => api.DELETE('/v2/organizations/{organization_id}/members/{user_id}', { params: { path: { organization_id: orgId, user_id: userId } } }),
        {
          403: 'leaving needs a person signed in through the identity provider, not an API token',
          404: `the signed-in person (user id ${userId}) is not a member of ${orgId}`,
        },
      );
      note(`you left ${orgId}; your API tokens of it are revoked, and your next sign-in gets a personal organisation`);
    },
  );
}

/** `invitations list|create|revoke` */
export function registerInvitations(program: Command, cli: Cli): void {
  const invitations = program.command('invitations').description('invitations to your organisation (admins)');

  organisationCommand(invitations, 'list', "your organisation's invitations and their status (never their codes)").action(async (options: { org?: string }) => {
    const { api, id: orgId } = await clientAndId(cli, options.org, organisationId);
    const list = await call(`listing the invitations of ${orgId}`, () =>
      api.GET('/v2/organizations/{organization_id}/invitations', { params: { path: { organization_id: orgId } } }),
    );
    print(cli.format(), list, (rows: Invitation[]) => ({
      header: ['ID', 'EMAIL', 'ROLE', 'STATUS', 'EXPIRES', 'INVITED BY'],
      rows: rows.map((i) => [
        i.id,
        i.email,
        i.role,
        i.status === 'accepted' && i.accepted_at ? `accepted ${i.accepted_at}` : i.status,
        i.expires_at,
        i.invited_by,
      ]),
    }));
  });

  organisationCommand(
    invitations,
    'create',
    'invite a person by email; the single-use code is shown once (no mail is sent: pass it on)',
    new Option('--email <email>', 'the verified email the person signs in with').makeOptionMandatory(),
    roleOption('the role they join with: admin, user or read-only').default('user'),
  ).action(async (options: { email: string; role: Role; org?: string }) => {
    const { url } = cli.credentials();
    const { api, id: orgId } = await clientAndId(cli, options.org, organisationId);
    const created = await call(`inviting ${options.email}`, () =>
      api.POST('/v2/organizations/{organization_id}/invitations', {
        params: { path: { organization_id: orgId } },
        body: { email: options.email, role: options.role },
      }),
    );
    // The link is the console's join page: the code rides in the fragment, which reaches no server log.
    print(cli.format(), { ...created, join_url: joinLink(url, created.code) }, (i) =>
      [
        i.code,
        '',
        `invitation ${i.id} for ${i.email} (${i.role}) created, valid until ${i.expires_at}; the code above is shown only now.`,
        `${i.email} joins, signed in with that email, with \`assisted orgs join CODE\` or at ${i.join_url}`,
      ].join('\n'),
    );
  });

  organisationCommand(invitations, 'revoke <invitation-id>', 'withdraw an invitation not accepted yet; its code stops working').action(
    async (invitationId: string, options: { org?: string }) => {
      const { api, id: orgId } = await clientAndId(cli, options.org, organisationId);
      await call(`withdrawing invitation ${invitationId}`, () =>
        api.DELETE('/v2/organizations/{organization_id}/invitations/{invitation_id}', {
          params: { path: { organization_id: orgId, invitation_id: invitationId } },
        }),
      );
      note(`invitation ${invitationId} withdrawn`);
    },
  );
}
