/** The REST API (API Gateway) in front of the API functions: the REST API function everywhere but the other API functions' paths. */
import { RemovalPolicy, type Stack, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Catalogue } from './catalogue.js';
import type { StageConfig } from './stage-config.js';

/**
 * Binary media types of the REST API. API Gateway decides whether to decode a base64 Lambda answer
 * from the request's first Accept type, and agents, curl and browsers send `*∕*`: only a wildcard
 * entry makes ISO, kubeconfig and log downloads arrive as bytes. The price is that every request body
 * reaches the function base64-encoded, which the API middleware decodes (rawBody), multipart/form-data
 * and application/octet-stream uploads included.
 */
export const BINARY_MEDIA_TYPES = ['*/*'];

/**
 * Functions of kind "api" besides the REST API itself, and the path each serves (as the local gateway
 * routes them, bin/local/runtime.ts). A new kind-"api" function without an entry here fails synth
 * rather than going unrouted.
 */
export const API_PATH_PREFIXES: Record<string, string> = { Images: 'api/assisted-images' };
/** The function answering every other path: the operations of openapi.yaml. */
export const REST_API_FUNCTION = 'Api';

export interface RestApiProps {
  catalogue: Catalogue;
  functions: Record<string, lambda.Function>;
  config: StageConfig;
  logRetention: logs.RetentionDays;
  removalPolicy: RemovalPolicy;
}

/** The API, in the stack's own scope (its logical ids, and so the deployed API and its URL, stay what they were). */
export function addRestApi(stack: Stack, props: RestApiProps): apigateway.LambdaRestApi {
  const { catalogue, functions, config, logRetention, removalPolicy } = props;
  const { stage } = config;
  const apiSpec = catalogue.functions.find((f) => f.name === REST_API_FUNCTION && f.kind === 'api');
  if (!apiSpec) throw new Error(`lambdas/functions.json has no function ${REST_API_FUNCTION} of kind "api"`);
  const accessLogs = new logs.LogGroup(stack, 'ApiAccessLogs', { retention: logRetention, removalPolicy });
  const api = new apigateway.LambdaRestApi(stack, 'Api', {
    handler: functions[apiSpec.name]!,
    // Routes are added below: the REST API function everywhere but the other API functions' prefixes.
    proxy: false,
    description: `Assisted Installer API (${stage})`,
    binaryMediaTypes: BINARY_MEDIA_TYPES,
    // Access and execution logs need API Gateway's account-wide CloudWatch role.
    cloudWatchRole: config.manageApiGatewayAccountRole,
    // Account-wide: another stack's API may rely on it after this stack is gone.
    cloudWatchRoleRemovalPolicy: config.manageApiGatewayAccountRole ? RemovalPolicy.RETAIN : undefined,
    endpointTypes: [apigateway.EndpointType.REGIONAL],
    deployOptions: {
      stageName: stage,
      throttlingRateLimit: config.apiRateLimit,
      throttlingBurstLimit: config.apiBurstLimit,
      tracingEnabled: true,
      metricsEnabled: true,
      // Errors only, and never bodies: requests carry pull secrets and tokens.
      loggingLevel: apigateway.MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
      accessLogDestination: new apigateway.LogGroupLogDestination(accessLogs),
      accessLogFormat: apigateway.AccessLogFormat.jsonWithStandardFields({
        caller: false,
        httpMethod: true,
        ip: true,
        protocol: true,
        requestTime: true,
        resourcePath: true,
        responseLength: true,
        status: true,
        user: false,
      }),
    },
  });
  // Every path goes to the REST API function, except the prefixes of the other API functions. Each
  // parent of such a prefix gets its own {proxy+} too, so no path depends on API Gateway falling
  // back from a partly matching resource to the root's.
  api.root.addMethod('ANY');
  api.root.addProxy({ anyMethod: true });
  for (const spec of catalogue.functions) {
    const prefix = API_PATH_PREFIXES[spec.name];
    if (spec.kind !== 'api' || !prefix) continue;
    const segments = prefix.split('/');
    for (let depth = 1; depth < segments.length; depth++) {
      const parent = api.root.resourceForPath(segments.slice(0, depth).join('/'));
      if (!parent.getResource('{proxy+}')) parent.addProxy({ anyMethod: true });
    }
    api.root.resourceForPath(prefix).addProxy({ defaultIntegration: new apigateway.LambdaIntegration(functions[spec.name]!), anyMethod: true });
  }
  for (const method of api.methods) {
    Validations.of(method).acknowledge(
      {
        id: 'AwsSolutions-APIG4',
        reason:
          "Authorization is the function's: openapi.yaml security schemes, checked by the API handler (Cognito or API tokens as Bearer, agent tokens as X-Secret-Key), as upstream assisted-service does; an API Gateway authorizer cannot read our token table cheaper.",
      },
      {
        id: 'AwsSolutions-COG4',
        reason:
          "The API function verifies Cognito tokens itself (jose, against the pool's JWKS: issuer, app client, expiry, token use) beside API tokens on the same Bearer header, and agent tokens as X-Secret-Key; a Cognito authorizer would refuse API and agent tokens, and the function must resolve the user's organisation and role anyway.",
      },
    );
  }
  Validations.of(api).acknowledge({
    id: 'AwsSolutions-APIG2',
    reason:
      'The API function validates every request against openapi.yaml (openapi-backend) before any use case runs; a second, API Gateway copy of the schema would drift from it.',
  });
  Validations.of(api.deploymentStage).acknowledge({
    id: 'AwsSolutions-APIG3',
    reason:
      'No WAF in staging: managed rule groups reject the large bodies agents post and cost more than the stage; the stage throttles (rate/burst context) and every operation authenticates.',
  });
  return api;
}
