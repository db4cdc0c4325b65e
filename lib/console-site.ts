import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import consoleSecurityHeaders from '../console/security-headers.json' with { type: 'json' };

const CONSOLE_SECURITY_HEADERS: Record<'Content-Security-Policy', string> & Record<string, string> = consoleSecurityHeaders;

/** The console build the console workspace produces. */
export const CONSOLE_BUILD_DIR = join('console', 'dist');
/** Served instead when there is no console build at synth, so synth never fails for want of one. */
export const CONSOLE_PLACEHOLDER_DIR = join('lib', 'console-placeholder');
/** Paths CloudFront sends to API Gateway: the assisted-install REST API and the image service. */
export const API_PATH_PATTERN = '/api/*';
/** Where the console opens its live socket (console/src/live.tsx, LIVE_PATH): the WebSocket API's stage. */
export const LIVE_PATH_PATTERN = '/live';

/**
 * The REST API stage as an HTTPS origin. Built from the API id and the stage *name* rather than
 * RestApiOrigin, which references the Stage resource: the functions name the distribution in
 * PUBLIC_URL, and Stage → Deployment → Method → Function → Distribution → Stage would be a cycle.
 */
function apiOrigin(api: apigateway.RestApi, stageName: string): cloudfront.IOrigin {
  const stack = Stack.of(api);
  return new origins.HttpOrigin(`${api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}`, {
    originPath: `/${stageName}`,
    protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
    originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
    readTimeout: Duration.seconds(30),
  });
}

/**
 * The WebSocket API's stage as an HTTPS origin, from the API's id (as apiOrigin: the live functions
 * name the distribution in PUBLIC_URL). No origin path: CloudFront appends the viewer's path, and
 * `/live` is already the stage's path (lib/live-api.ts, LIVE_STAGE_NAME).
 */
function liveOrigin(scope: Construct, apiId: string): cloudfront.IOrigin {
  const stack = Stack.of(scope);
  return new origins.HttpOrigin(`${apiId}.execute-api.${stack.region}.${stack.urlSuffix}`, {
    protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
    originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
  });
}

/** The policy with these sources added to its connect-src (which it must have: the console's says 'self'). */
export function withConnectSources(policy: string, sources: string[]): string {
  if (sources.length === 0) return policy;
  const directives = policy.split(';').map((directive) => directive.trim());
  const index = directives.findIndex((directive) => directive.split(/\s+/)[0] === 'connect-src');
  if (index < 0) throw new Error("the console's Content-Security-Policy has no connect-src to extend");
  directives[index] = [directives[index], ...sources].join(' ');
  return directives.join('; ');
}

export interface ConsoleSiteProps {
  projectRoot: string;
  api: apigateway.RestApi;
  /** The API Gateway stage name (a plain string, not the Stage resource: see apiOrigin). */
  apiStageName: string;
  accessLogs: s3.IBucket;
  domainName?: string;
  certificateArn?: string;
  /** The WebSocket API (lib/live-api.ts) the console's `/live` reaches; without it the console polls. */
  liveApiId?: string;
  /** Origins the console calls besides its own (the identity provider's token endpoint): added to the CSP's connect-src. */
  connectSources?: string[];
  removalPolicy: RemovalPolicy;
  logGroup: logs.ILogGroup;
}

/**
 * The console (static files in a private bucket) and the API under one CloudFront domain, so the
 * console calls the API same-origin and agents and users need one URL.
 */
export class ConsoleSite extends Construct {
  readonly distribution: cloudfront.Distribution;
  readonly bucket: s3.Bucket;
  /** Where the deployed console came from: the build, or the placeholder page. */
  readonly source: string;

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: 's3/console/',
      // Only build output lives here, and the deployment below empties it when it is deleted.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const consoleRoutes = new cloudfront.Function(this, 'ConsoleRoutes', {
      code: cloudfront.FunctionCode.fromFile({ filePath: join(props.projectRoot, 'lib', 'cloudfront', 'console-routes.js') }),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      comment: 'Console routes without a file extension are answered with index.html',
    });

    // The console's headers are the ones the embedded runtime sends (console/security-headers.json),
    // with HSTS, which only means something over HTTPS.
    const consoleHeaders = new cloudfront.ResponseHeadersPolicy(this, 'ConsoleHeaders', {
      comment: 'assisted-cloud console: CSP, no framing, no sniffing, no referrer, HSTS',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: withConnectSources(CONSOLE_SECURITY_HEADERS['Content-Security-Policy'], props.connectSources ?? []),
          override: true,
        },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
    });
    // The API function sets nosniff and no-store itself (lambdas/platform/middleware.ts); these keep
    // them on answers API Gateway makes on its own (throttling, 413, 5xx) and add HSTS.
    const apiHeaders = new cloudfront.ResponseHeadersPolicy(this, 'ApiHeaders', {
      comment: 'assisted-cloud API: no sniffing, nothing cached, HSTS',
      securityHeadersBehavior: {
        contentTypeOptions: { override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
      customHeadersBehavior: { customHeaders: [{ header: 'Cache-Control', value: 'no-store', override: false }] },
    });

    const certificate = props.certificateArn ? acm.Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn) : undefined;
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'assisted-cloud console and API',
      defaultRootObject: 'index.html',
      domainNames: props.domainName ? [props.domainName] : undefined,
      certificate,
      // With CloudFront's default certificate the policy is fixed at TLSv1 (acknowledged below).
      minimumProtocolVersion: certificate ? cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021 : undefined,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: props.accessLogs,
      logFilePrefix: 'cloudfront/',
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: consoleHeaders,
        functionAssociations: [{ function: consoleRoutes, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        [API_PATH_PATTERN]: {
          origin: apiOrigin(props.api, props.apiStageName),
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
          // Nothing of the API is cached; every viewer header but Host goes through, Authorization,
          // X-Secret-Key and the agent's discovery_agent_version included.
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: apiHeaders,
        },
        // The console's live socket, same-origin as the console and the API: the handshake's
        // Sec-WebSocket-* headers (the token rides in Sec-WebSocket-Protocol, never in the logged URL)
        // go through, Host is the stage's.
        ...(props.liveApiId
          ? {
              [LIVE_PATH_PATTERN]: {
                origin: liveOrigin(this, props.liveApiId),
                viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
                allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
                cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
                originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
                responseHeadersPolicy: apiHeaders,
              },
            }
          : {}),
      },
    });

    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason: 'Clusters are installed from anywhere; the service has no country restrictions to enforce.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'No WAF in staging: its managed rule groups reject the large JSON bodies agents post (inventories, step replies) and cost more than the stage; the API authenticates every request and API Gateway throttles it.',
      },
    );
    if (!certificate) {
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR4',
        reason:
          'No custom domain configured for this stage (context domainName/certificateArn): the CloudFront default certificate is used, whose minimum protocol CloudFront fixes at TLSv1; configuring a domain applies TLSv1.2_2021.',
      });
    }

    const build = join(props.projectRoot, CONSOLE_BUILD_DIR);
    this.source = existsSync(join(build, 'index.html')) ? CONSOLE_BUILD_DIR : CONSOLE_PLACEHOLDER_DIR;
    new s3deploy.BucketDeployment(this, 'Deployment', {
      sources: [s3deploy.Source.asset(join(props.projectRoot, this.source))],
      destinationBucket: this.bucket,
      distribution: this.distribution,
      distributionPaths: ['/*'],
      retainOnDelete: false,
      memoryLimit: 512,
      logGroup: props.logGroup,
    });
  }
}
