/**
 * How people sign in to the service in AWS: an Amazon Cognito user pool with its hosted sign-in
 * pages, an app client for the console, and optionally a federated OIDC or SAML identity provider.
 * The API verifies the pool's tokens itself (lambdas/adapters/oidc); the console learns where to
 * sign in from the API (the IDENTITY_PROVIDER_* settings of `apiEnvironment`).
 */
import { Aws, Duration, Fn, RemovalPolicy, SecretValue, Stack, Validations } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { derivedDomainPrefix, type SignInConfig } from './stage-config.js';

/** Where the console takes the authorization code back, and where sign-out returns to. */
export const CONSOLE_CALLBACK_PATH = '/sign-in/callback';
export const CONSOLE_SIGN_OUT_PATH = '/';

/** The console asks for these; it needs the email (the API names users by it) and nothing of Cognito's own API. */
export const CONSOLE_SCOPES = [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE];

export interface SignInProps {
  config: SignInConfig;
  stage: string;
  /** The stage's us-east-1 certificate, for a custom sign-in domain. */
  certificateArn?: string;
  /** Ephemeral (dev) stages lose their users with the stack; every other stage keeps and protects the pool. */
  ephemeral: boolean;
}

/**
 * Built in two steps: the pool and its domain first, which the console's CloudFront distribution
 * names (its CSP lets the console call the token endpoint); then the console's client, which names
 * the distribution (its callback URLs).
 */
export class SignIn extends Construct {
  readonly userPool: cognito.UserPool;
  private client?: cognito.UserPoolClient;
  readonly domain: cognito.UserPoolDomain;
  readonly federatedProvider?: cognito.UserPoolIdentityProviderOidc | cognito.UserPoolIdentityProviderSaml;
  /** The `iss` of the pool's tokens. */
  readonly issuer: string;
  /** Base URL (an origin) of the hosted sign-in pages and OAuth endpoints. */
  readonly baseUrl: string;

  constructor(scope: Construct, id: string, props: SignInProps) {
    super(scope, id);
    const { config, ephemeral } = props;
    const stack = Stack.of(this);

    this.userPool = new cognito.UserPool(this, 'UserPool', {
      userPoolName: `assisted-cloud-${props.stage}`,
      // A SaaS people join on their own; their first request makes them a personal organisation.
      selfSignUpEnabled: true,
      // The email is the username: one account per address, matched without regard to case.
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      // A change of address takes effect only once the new one is verified, so the email the API
      // keeps (and invitations are matched against) is always one its owner proved.
      keepOriginal: { email: true },
      userVerification: {
        emailSubject: 'Your assisted-cloud verification code',
        emailBody: 'Your assisted-cloud verification code is {####}',
        emailStyle: cognito.VerificationEmailStyle.CODE,
      },
      // Mutable: a federated user's email is written from the identity provider at each sign-in.
      standardAttributes: { email: { required: true, mutable: true } },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
        passwordHistorySize: 5,
      },
      // TOTP apps only: SMS costs per message, needs an SNS spending limit and a role, and is the
      // weakest second factor.
      mfa: cognito.Mfa.OPTIONAL,
      mfaSecondFactor: { sms: false, otp: true, email: false },
      enableSmsRole: false,
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      featurePlan: config.threatProtection ? cognito.FeaturePlan.PLUS : cognito.FeaturePlan.ESSENTIALS,
      ...(config.threatProtection ? { standardThreatProtectionMode: cognito.StandardThreatProtectionMode.FULL_FUNCTION } : {}),
      removalPolicy: ephemeral ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      deletionProtection: !ephemeral,
    });

    // On the pool resource itself: the pool construct's children (the client, the domain) need none.
    const poolResource = this.userPool.node.defaultChild as cognito.CfnUserPool;
    Validations.of(poolResource).acknowledge({
      id: 'AwsSolutions-COG2',
      reason:
        'MFA is optional by product choice: anyone may sign up to try the service, and requiring an authenticator app before the first sign-in turns people away; users turn TOTP on for themselves, and federated users get MFA from their own identity provider.',
    });
    if (!config.threatProtection) {
      Validations.of(poolResource).acknowledge({
        id: 'AwsSolutions-COG8',
        reason:
          'Essentials plan by default: its 10,000 monthly active users are free, where Plus (threat protection) bills every active user from the first; context signInThreatProtection=true turns on Plus with threat protection enforced (docs/deploy.md, "Signing in").',
      });
    }

    if (config.federation?.type === 'oidc') {
      const oidc = config.federation;
      this.federatedProvider = new cognito.UserPoolIdentityProviderOidc(this, 'Oidc', {
        userPool: this.userPool,
        name: oidc.name,
        issuerUrl: oidc.issuer,
        clientId: oidc.clientId,
        // A dynamic reference CloudFormation resolves at deploy: the secret is in neither the template nor the CDK output.
        clientSecret: SecretValue.secretsManager(oidc.clientSecretName).unsafeUnwrap(),
        scopes: ['openid', 'email', 'profile'],
        attributeMapping: {
          email: cognito.ProviderAttribute.other(oidc.emailAttribute),
          // Without it Cognito marks a federated email unverified, and the API keeps no unverified email.
          emailVerified: cognito.ProviderAttribute.other('email_verified'),
        },
      });
    } else if (config.federation?.type === 'saml') {
      const saml = config.federation;
      this.federatedProvider = new cognito.UserPoolIdentityProviderSaml(this, 'Saml', {
        userPool: this.userPool,
        name: saml.name,
        metadata: cognito.UserPoolIdentityProviderSamlMetadata.url(saml.metadataUrl),
        attributeMapping: { email: cognito.ProviderAttribute.other(saml.emailAttribute) },
      });
    }

    if (config.domainName) {
      this.domain = this.userPool.addDomain('Domain', {
        customDomain: {
          domainName: config.domainName,
          certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn!),
        },
      });
    } else {
      // Prefix domains are global to the region, across accounts: the stack's id (a UUID per stack)
      // makes the derived one unique without putting the account id in every sign-in URL.
      const stackIdPart = Fn.select(0, Fn.split('-', Fn.select(2, Fn.split('/', Aws.STACK_ID))));
      this.domain = this.userPool.addDomain('Domain', {
        cognitoDomain: { domainPrefix: config.domainPrefix ?? `${derivedDomainPrefix(props.stage)}-${stackIdPart}` },
      });
    }
    this.baseUrl = this.domain.baseUrl();
    this.issuer = `https://cognito-idp.${stack.region}.${stack.urlSuffix}/${this.userPool.userPoolId}`;
  }

  /**
   * The console's app client, served from these origins (`https://host`, no trailing slash): the
   * CloudFront domain, and the custom domain when there is one.
   */
  addConsoleClient(consoleOrigins: string[]): cognito.UserPoolClient {
    if (this.client) throw new Error('the console has one app client');
    const callbackUrls = consoleOrigins.map((origin) => `${origin}${CONSOLE_CALLBACK_PATH}`);
    const logoutUrls = consoleOrigins.map((origin) => `${origin}${CONSOLE_SIGN_OUT_PATH}`);
    const client = this.userPool.addClient('ConsoleClient', {
      userPoolClientName: 'console',
      // A browser keeps no secret: a public client, whose code exchange the console binds to its
      // request with PKCE (S256). Cognito has no switch to refuse a public client's exchange
      // without PKCE; the console always sends one.
      generateSecret: false,
      oAuth: {
        flows: { authorizationCodeGrant: true, implicitCodeGrant: false, clientCredentials: false },
        scopes: CONSOLE_SCOPES,
        callbackUrls,
        logoutUrls,
      },
      // Sign-in happens on the hosted pages; of the direct API flows the client allows only SRP
      // (and refresh), never a plain password sent to Cognito's API.
      authFlows: { userSrp: true },
      supportedIdentityProviders: [
        cognito.UserPoolClientIdentityProvider.COGNITO,
        ...(this.federatedProvider ? [cognito.UserPoolClientIdentityProvider.custom(this.federatedProvider.providerName)] : []),
      ],
      preventUserExistenceErrors: true,
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      // A browser's refresh token is the longest-lived credential it holds: a working week.
      refreshTokenValidity: Duration.days(7),
      enableTokenRevocation: true,
    });
    // The client names the provider; CloudFormation must create the provider first.
    if (this.federatedProvider) client.node.addDependency(this.federatedProvider);
    this.client = client;
    return client;
  }

  get consoleClient(): cognito.UserPoolClient {
    if (!this.client) throw new Error('addConsoleClient first');
    return this.client;
  }

  /**
   * The API's identity provider settings (lambdas/platform/config.ts): tokens of this pool's console
   * client are accepted, and the console reads where to sign in from the API.
   */
  apiEnvironment(): Record<string, string> {
    return {
      IDENTITY_PROVIDER_ISSUER: this.issuer,
      IDENTITY_PROVIDER_CLIENT_IDS: this.consoleClient.userPoolClientId,
      IDENTITY_PROVIDER_CONSOLE_CLIENT_ID: this.consoleClient.userPoolClientId,
      IDENTITY_PROVIDER_AUTHORIZATION_URL: `${this.baseUrl}/oauth2/authorize`,
      IDENTITY_PROVIDER_TOKEN_URL: `${this.baseUrl}/oauth2/token`,
      IDENTITY_PROVIDER_SIGN_OUT_URL: `${this.baseUrl}/logout`,
    };
  }
}
