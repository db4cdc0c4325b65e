import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** A request as a Lambda function URL hands it to the function (payload format 2.0). */
export function functionUrlEvent(
  method: string,
  pathAndQuery: string,
  headers: Record<string, string> = {},
  body?: string,
  isBase64Encoded = false,
): APIGatewayProxyEventV2 {
  const [rawPath, rawQueryString = ''] = pathAndQuery.split(/\?(.*)/s);
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: rawPath!,
    rawQueryString,
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])),
    requestContext: {
      accountId: 'anonymous',
      apiId: 'abcdefghijklmnopqrstuvwxyz012345',
      domainName: 'abcdefghijklmnopqrstuvwxyz012345.lambda-url.us-east-1.on.aws',
      domainPrefix: 'abcdefghijklmnopqrstuvwxyz012345',
      http: { method, path: rawPath!, protocol: 'HTTP/1.1', sourceIp: '192.0.2.10', userAgent: 'Go-http-client/1.1' },
      requestId: 'c7c6d0a4-59a4-4e0e-9a5e-2c0f1f8a4c11',
      routeKey: '$default',
      stage: '$default',
      time: '27/Nov/2026:18:00:00 +0000',
      timeEpoch: 1_795_716_000_000,
    },
    ...(body !== undefined ? { body } : {}),
    isBase64Encoded,
  };
}
