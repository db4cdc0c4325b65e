import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local as its own ServerRunner builds it, but listening on 127.0.0.1 only: the jar has no
 * bind option and its Jetty server listens on every interface, where anyone on the network could
 * read and write the tables (pull secrets, token hashes). Takes DynamoDB Local's arguments. Run by
 * bin/local/dynamodb-local.ts with Java's source launcher (`java -cp DynamoDBLocal.jar THIS_FILE …`).
 * Telemetry is never configured, so none is sent.
 */
public class LoopbackDynamoDBLocal {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field serverField = DynamoDBProxyServer.class.getDeclaredField("server");
    serverField.setAccessible(true);
    Server server = (Server) serverField.get(proxy);
    Connector[] connectors = server.getConnectors();
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local has no connector to bind to loopback");
    for (Connector connector : connectors) ((ServerConnector) connector).setHost("127.0.0.1");
    proxy.start();
    System.out.println("DynamoDB Local listening on 127.0.0.1 only");
  }
}
