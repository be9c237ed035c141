import java.lang.reflect.Field;
import java.util.Arrays;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local bound to one address. The engine has no option for it: its server listens on every
 * interface. This builds the server from the usual arguments, as the engine's own main does, and
 * binds its connector to the address given first before starting it. Run by lib/local/dynamodb-local.ts
 * as a single-file source program (java File.java), with the engine's jar on the class path.
 */
public class DynamoDbLocalOnHost {
  public static void main(String[] args) throws Exception {
    String host = args[0];
    DynamoDBProxyServer engine =
        ServerRunner.createServerFromCommandLineArgs(Arrays.copyOfRange(args, 1, args.length));
    Field server = DynamoDBProxyServer.class.getDeclaredField("server");
    server.setAccessible(true);
    for (Connector connector : ((Server) server.get(engine)).getConnectors()) {
      ((ServerConnector) connector).setHost(host);
    }
    engine.start();
  }
}
