import { ApiGatewayManagementApiClient, DeleteConnectionCommand, GoneException, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import type { LiveConnections } from '../../ports/live-connections.js';

/** The management API of the WebSocket API's stage (`https://<api>.execute-api.<region>.amazonaws.com/<stage>`; locally the runtime's gateway answers it). */
export function createApiGatewayConnections(options: { endpoint: string; region: string }): LiveConnections {
  const client = new ApiGatewayManagementApiClient({ endpoint: options.endpoint, region: options.region });
  return {
    async post(connectionId, message) {
      try {
        await client.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.from(message) }));
        return 'sent';
      } catch (error) {
        if (error instanceof GoneException || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 410) return 'gone';
        throw error;
      }
    },
    async close(connectionId) {
      try {
        await client.send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
      } catch (error) {
        if (!(error instanceof GoneException || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 410)) throw error;
      }
    },
  };
}
