package kg.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;

/**
 * Runs Neo4j Community in this JVM for kg: Bolt and HTTP (with Browser at /browser/) on the loopback interface.
 *
 * <p>Everything is read from the environment so the Python side stays the only place that knows defaults:
 * KG_NEO4J_HOME (data folder), KG_BOLT_PORT, KG_HTTP_PORT, KG_PAGECACHE (e.g. "512m"), KG_NEO4J_PASSWORD.
 * Prints one line "KG-READY bolt=HOST:PORT http=HOST:PORT" when the database answers, and one line
 * "KG-ERROR ..." before exiting non-zero when it cannot start. SIGTERM shuts the database down cleanly.
 */
public final class Launcher {
    private static final String HOST = "127.0.0.1";
    private static final String USER = "neo4j";

    public static void main(String[] args) throws Exception {
        Map<String, String> env = System.getenv();
        Path home = Path.of(env.getOrDefault("KG_NEO4J_HOME", ".kg/neo4j")).toAbsolutePath();
        int boltPort = Integer.parseInt(env.getOrDefault("KG_BOLT_PORT", "7687"));
        int httpPort = Integer.parseInt(env.getOrDefault("KG_HTTP_PORT", "7474"));
        String pageCache = env.getOrDefault("KG_PAGECACHE", "512m");
        String password = env.get("KG_NEO4J_PASSWORD");
        if (password == null || password.length() < 8) {
            fail("KG_NEO4J_PASSWORD must be set to at least 8 characters");
        }

        DatabaseManagementService dbms;
        try {
            Files.createDirectories(home);
            dbms = new DatabaseManagementServiceBuilder(home)
                    .setConfig(BoltConnector.enabled, true)
                    .setConfig(BoltConnector.listen_address, new SocketAddress(HOST, boltPort))
                    .setConfig(BoltConnector.advertised_address, new SocketAddress(HOST, boltPort))
                    .setConfig(HttpConnector.enabled, true)
                    .setConfig(HttpConnector.listen_address, new SocketAddress(HOST, httpPort))
                    .setConfig(HttpConnector.advertised_address, new SocketAddress(HOST, httpPort))
                    .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.parse(pageCache))
                    .setConfig(GraphDatabaseSettings.auth_enabled, true)
                    .build();
        } catch (Throwable e) {
            fail(rootMessage(e));
            return;
        }

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            dbms.shutdown();
            stopped.countDown();
        }, "kg-shutdown"));

        long readyAt = System.nanoTime();
        // Setting the password compiles a system-graph command; skip it when the caller knows it is already set.
        boolean setPassword = !"1".equals(env.get("KG_PASSWORD_ALREADY_SET"));
        try {
            if (!setPassword) {
                throw new SkipPassword();
            }
            // The password lives only in the environment of this process and in the database's own system graph.
            dbms.database("system").executeTransactionally(
                    "ALTER USER " + USER + " SET PASSWORD $password CHANGE NOT REQUIRED",
                    Map.of("password", password));
        } catch (SkipPassword e) {
            // nothing to do
        } catch (Throwable e) {
            // Restarting with an unchanged password is the common case, and Neo4j reports it as an error.
            if (!rootMessage(e).contains("Old password and new password cannot be the same")) {
                fail("could not set the neo4j password: " + rootMessage(e));
            }
        }

        System.out.println("KG-PASSWORD " + (setPassword ? "set" : "unchanged") + " in "
                + (System.nanoTime() - readyAt) / 1_000_000 + " ms");
        System.out.println("KG-READY bolt=" + HOST + ":" + boltPort + " http=" + HOST + ":" + httpPort);
        System.out.flush();
        stopped.await();
    }

    private static final class SkipPassword extends Exception {
    }

    private static String rootMessage(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        return message.replace('\n', ' ');
    }

    private static void fail(String message) {
        System.out.println("KG-ERROR " + message);
        System.out.flush();
        Runtime.getRuntime().halt(1);
    }
}
