/**
 * What follows changes live (docs/api.md, "Webhooks", "Live changes"): the WebSocket API whose
 * routes are the LiveConnect/LiveDisconnect/LiveMessage functions, and the event bus the
 * LiveChanges stream consumer publishes to. The consumer and LiveMessage post to connections
 * through the stage's management API (LIVE_MANAGEMENT_URL).
 */
import { type CfnElement, type Stack, Validations } from 'aws-cdk-lib';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as events from 'aws-cdk-lib/aws-events';
import type * as lambda from 'aws-cdk-lib/aws-lambda';

/**
 * The WebSocket stage's name, which is also its URL's path: CloudFront sends the console's `/live`
 * (console/src/live.tsx, LIVE_PATH) to the stage's URL unchanged, so the two must be the same.
 */
export const LIVE_STAGE_NAME = 'live';

export interface LiveApi {
  webSocketUrl: string;
  /** The WebSocket API's id: its domain is `<id>.execute-api.<region>.<suffix>`. */
  apiId: string;
  bus: events.EventBus;
}

export function addLiveApi(stack: Stack, functions: Record<string, lambda.Function>): LiveApi | undefined {
  const [connect, disconnect, message, changes] = ['LiveConnect', 'LiveDisconnect', 'LiveMessage', 'LiveChanges'].map((name) => functions[name]);
  if (!connect || !disconnect || !message || !changes) return undefined;
  const bus = new events.EventBus(stack, 'Events', { eventBusName: `${stack.stackName}-events` });
  bus.grantPutEventsTo(changes);
  changes.addEnvironment('EVENT_BUS_NAME', bus.eventBusName);
  changes.addEnvironment('WEBHOOK_ENDPOINTS', 'public');

  const api = new apigwv2.WebSocketApi(stack, 'Live', {
    connectRouteOptions: { integration: new WebSocketLambdaIntegration('LiveConnect', connect) },
    disconnectRouteOptions: { integration: new WebSocketLambdaIntegration('LiveDisconnect', disconnect) },
    defaultRouteOptions: { integration: new WebSocketLambdaIntegration('LiveMessage', message) },
    routeSelectionExpression: '$request.body.action',
  });
  api.addRoute('subscribe', { integration: new WebSocketLambdaIntegration('LiveSubscribe', message) });
  const stage = new apigwv2.WebSocketStage(stack, 'LiveStage', {
    webSocketApi: api,
    stageName: LIVE_STAGE_NAME,
    autoDeploy: true,
    throttle: { rateLimit: 100, burstLimit: 200 },
  });
  for (const fn of [message, changes]) {
    api.grantManageConnections(fn);
    fn.addEnvironment('LIVE_MANAGEMENT_URL', stage.callbackUrl);
    Validations.of(fn.role ?? fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${stack.getLogicalId(api.node.defaultChild as CfnElement)}>/*/*/@connections/*]`,
      reason: "Connection ids are made by API Gateway at each connect: posting to and closing connections is granted on this API's @connections only.",
    });
  }
  for (const fn of [connect, disconnect]) fn.addEnvironment('LIVE_MANAGEMENT_URL', stage.callbackUrl);
  Validations.of(api).acknowledge({
    id: 'AwsSolutions-APIG4',
    reason:
      '$connect authenticates in its function (an API token or a sign-in session, as the REST API does) and refuses the handshake otherwise; the other routes act only for connections it admitted.',
  });
  Validations.of(stage).acknowledge({
    id: 'AwsSolutions-APIG1',
    reason: 'Each route is a Lambda function that logs every connection and message it handles; the stage is throttled.',
  });
  return { webSocketUrl: stage.url, apiId: api.apiId, bus };
}
