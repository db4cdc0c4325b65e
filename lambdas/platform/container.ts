import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoStore } from '../adapters/dynamodb/store.js';
import { unmeteredRetries } from '../adapters/dynamodb/retries.js';
import { withPlainJsonBodies } from '../adapters/dynamodb/plain-json-protocol.js';
import { sdkLoggerWithoutPayloads, withSignersKept } from '../adapters/sdk-client.js';
import type { BlobStore } from '../ports/blobs.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { DnsZones } from '../ports/dns.js';
import type { IdentityVerifier } from '../ports/identity.js';
import type { IdentityProviderSettings } from '../domain/auth/identity.js';
import type { Store } from '../ports/store.js';
import type { SyntheticBaseImages } from '../ports/synthetic-base-images.js';
import type { Workflows } from '../ports/workflows.js';
import type { WebhookSender } from '../ports/webhook-sender.js';
import type { EventBus } from '../ports/event-bus.js';
import type { LiveConnections } from '../ports/live-connections.js';
import type { UnconfiguredIgnitions } from '../ports/unconfigured-ignitions.js';
import { createUnconfiguredIgnitions, unconfiguredIgnitionSettings } from '../adapters/openshift-install/unconfigured-ignitions.js';
import { blobStore } from './blob-store.js';
import { logger } from './observability.js';
import { configFromEnvironment, type ServiceConfig } from './config.js';
import { deferred } from './deferred.js';

/** The ports a use case may need, built once per process (a Lambda container or the local runtime). */
export interface Ports {
  config: ServiceConfig;
  store: Store;
  blobs: BlobStore;
  dns: DnsZones;
  workflows: Workflows;
  clock: Clock;
  /** Only where the composition root offers SYNTHETIC base ISOs on first use (the embedded runtime). */
  syntheticBaseImages?: SyntheticBaseImages;
  /** The unconfigured ignitions of disconnected ISOs: openshift-install, or the SIMULATED generator where allowed. */
  unconfiguredIgnitions: UnconfiguredIgnitions;
  /** Posts webhook deliveries (loaded on first use). */
  webhookSender: WebhookSender;
  /** The WebSocket API's connections, when the deployment has one (LIVE_MANAGEMENT_URL). */
  liveConnections?: LiveConnections;
  /** The stack's event bus, when the deployment has one. */
  eventBus?: EventBus;
  /** Only when an identity provider is configured: its tokens are then accepted beside API tokens. */
  identity?: IdentityVerifier;
}

let ports: Ports | undefined;
let provided: Partial<Ports> = {};

/**
 * SDK clients honour AWS_ENDPOINT_URL_<SERVICE>, so the same wiring reaches AWS or local
 * emulators; only S3 needs path-style addressing when pointed at an emulator (platform/blob-store.ts).
 */
function build(): Ports {
  const config = provided.config ?? configFromEnvironment();
  const region = config.region;
  // A Lambda serves one request at a time; the embedded runtime serves many agents in one process,
  // and bounds what each instance sends DynamoDB Local at once (DYNAMODB_MAX_SOCKETS): it serialises
  // writes, and requests queued in the client wait less than requests queued on its locks.
  const pooled = { maxSockets: Number(process.env.DYNAMODB_MAX_SOCKETS) || 256, keepAlive: true };
  const maxAttempts = 8;
  return {
    config,
    store:
      provided.store ??
      createDynamoStore({
        tableName: config.tableName,
        auditRetentionDays: config.auditRetentionDays,
        // More attempts than the SDK's 3, with its backoff: throttling under a burst of agents (and
        // DynamoDB Local's lock time-outs) pass instead of failing the request. Item operations'
        // bodies are plain JSON (adapters/dynamodb/plain-json-protocol.ts): the SDK's schema walk
        // was the largest part of its CPU. Each kind of command builds its middleware once
        // (cacheMiddleware; the store's document client allows it: adapters/dynamodb/document-client.ts),
        // and signs with one signer (withSignersKept), not one built per request.
        client: withSignersKept(
          withPlainJsonBodies(
            new DynamoDBClient({
              region,
              maxAttempts,
              cacheMiddleware: true,
              logger: sdkLoggerWithoutPayloads,
              ...(process.env.DYNAMODB_RETRY_QUOTA === 'off' ? { retryStrategy: unmeteredRetries(maxAttempts) } : {}),
              requestHandler: { httpAgent: pooled, httpsAgent: pooled },
            }),
          ),
        ),
      }),
    // Loaded on first use (platform/deferred.ts): the table is read by every invocation, these by few.
    blobs: provided.blobs ?? blobStore(config),
    dns:
      provided.dns ??
      deferred<DnsZones>({ upsert: true, remove: true, list: true }, async () =>
        (await import('../adapters/route53/zones.js')).createRoute53Zones({ hostedZones: config.hostedZones, clientConfig: { region } }),
      ),
    workflows:
      provided.workflows ??
      deferred<Workflows>({ start: true, describe: true, stop: true, succeedTask: true, failTask: true }, async () =>
        (await import('../adapters/stepfunctions/workflows.js')).createStepFunctionsWorkflows({
          stateMachines: config.stateMachines,
          clientConfig: { region },
        }),
      ),
    clock: provided.clock ?? systemClock,
    webhookSender:
      provided.webhookSender ??
      deferred<WebhookSender>({ post: true }, async () => (await import('../adapters/http/webhook-sender.js')).createHttpWebhookSender()),
    ...(provided.liveConnections
      ? { liveConnections: provided.liveConnections }
      : config.live.managementUrl
        ? { liveConnections: liveConnectionsOf(config.live.managementUrl, region) }
        : {}),
    ...(provided.eventBus ? { eventBus: provided.eventBus } : config.eventBus ? { eventBus: eventBusOf(config.eventBus, region) } : {}),
    unconfiguredIgnitions:
      provided.unconfiguredIgnitions ?? createUnconfiguredIgnitions(unconfiguredIgnitionSettings(process.env, (level, message) => logger[level](message))),
    ...(provided.syntheticBaseImages ? { syntheticBaseImages: provided.syntheticBaseImages } : {}),
    ...(provided.identity ? { identity: provided.identity } : config.identityProvider ? { identity: identityVerifier(config.identityProvider) } : {}),
  };
}

function liveConnectionsOf(endpoint: string, region: string): LiveConnections {
  return deferred<LiveConnections>({ post: true, close: true }, async () =>
    (await import('../adapters/apigateway/connections.js')).createApiGatewayConnections({ endpoint, region }),
  );
}

function eventBusOf(settings: NonNullable<ServiceConfig['eventBus']>, region: string): EventBus {
  return deferred<EventBus>({ publish: true }, async () =>
    'busName' in settings
      ? (await import('../adapters/eventbridge/bus.js')).createEventBridgeBus({ busName: settings.busName, region })
      : (await import('../adapters/eventbridge/file-bus.js')).createFileEventBus(settings.file),
  );
}

function identityVerifier(settings: IdentityProviderSettings): IdentityVerifier {
  return deferred<IdentityVerifier>({ verify: true }, async () => (await import('../adapters/oidc/verifier.js')).createOidcIdentityVerifier(settings));
}

export function container(): Ports {
  ports ??= build();
  return ports;
}

/**
 * For composition roots only (the embedded runtime, tests): replace ports whose stand-in is not
 * reachable through an SDK endpoint. Must run before the first `container()` call.
 */
export function provide(overrides: Partial<Ports>): void {
  provided = { ...provided, ...overrides };
  ports = undefined;
}
