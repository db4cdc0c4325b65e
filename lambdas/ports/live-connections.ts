/** The WebSocket API's connections (API Gateway's management API in AWS, the local gateway here). */
export interface LiveConnections {
  /** Sends one message; `gone` when the connection no longer exists (410). */
  post(connectionId: string, message: string): Promise<'sent' | 'gone'>;
  /** Closes the connection (API Gateway's DeleteConnection); a gone one is closed already. */
  close(connectionId: string): Promise<void>;
}
