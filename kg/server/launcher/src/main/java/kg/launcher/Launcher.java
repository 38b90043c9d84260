package kg.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

import org.neo4j.dbms.DatabaseStateService;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.event.DatabaseEventContext;
import org.neo4j.graphdb.event.DatabaseEventListenerAdapter;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.kernel.internal.Version;
import org.neo4j.kernel.monitoring.ExceptionalDatabaseEvent;

/**
 * Runs Neo4j Community in this JVM for kg.
 *
 * <p>Every Neo4j setting comes from the file named by KG_NEO4J_CONF, written by kg (kg/server/neo4j_config.py), so
 * the Python side is the one place that knows them. The environment gives the rest: KG_NEO4J_HOME (data folder),
 * KG_NEO4J_PASSWORD, KG_PASSWORD_ALREADY_SET ("1" skips setting it) and KG_DATABASE (the database kg uses).
 *
 * <p>Lines on stdout kg reads: "KG-READY neo4j=VERSION" once that database is online; "KG-ERROR ..." before exiting
 * non-zero when it cannot start or the database does not come online; "KG-DATABASE NAME panic|out-of-disk: ..."
 * whenever Neo4j reports one of those while running (the log may be on the full disk, so the line may be lost).
 * SIGTERM shuts the database down cleanly; a panic halts the JVM at once (see Reporter).
 */
public final class Launcher {
    private static final String USER = "neo4j";

    public static void main(String[] args) throws Exception {
        Map<String, String> env = System.getenv();
        Path home = Path.of(env.getOrDefault("KG_NEO4J_HOME", ".")).toAbsolutePath();
        Path conf = Path.of(env.getOrDefault("KG_NEO4J_CONF", home.resolve("neo4j.conf").toString()));
        String database = env.getOrDefault("KG_DATABASE", "neo4j");
        String password = env.get("KG_NEO4J_PASSWORD");
        if (password == null || password.length() < 8) {
            fail("KG_NEO4J_PASSWORD must be set to at least 8 characters");
        }

        DatabaseManagementService dbms;
        try {
            Files.createDirectories(home);
            dbms = new DatabaseManagementServiceBuilder(home)
                    .loadPropertiesFromFile(conf)
                    .addDatabaseListener(new Reporter())
                    .build();
        } catch (Throwable e) {
            fail(rootMessage(e));
            return;
        }

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (Reporter.panicked) {
                Runtime.getRuntime().halt(3); // a clean shutdown would write behind a torn log entry
            }
            dbms.shutdown();
            stopped.countDown();
        }, "kg-shutdown"));

        // build() returns with every database started or failed; a failed one must not look like a running server.
        GraphDatabaseService db = dbms.database(database);
        if (!db.isAvailable(10_000)) {
            failAndStop(dbms, "the `" + database + "` database did not come online: " + failureOf(dbms, db));
        }

        long readyAt = System.nanoTime();
        // Setting the password compiles a system-graph command; skip it when the caller knows it is already set.
        boolean setPassword = !"1".equals(env.get("KG_PASSWORD_ALREADY_SET"));
        if (setPassword) {
            try {
                // The password lives only in the environment of this process and in the database's system graph.
                dbms.database("system").executeTransactionally(
                        "ALTER USER " + USER + " SET PASSWORD $password CHANGE NOT REQUIRED",
                        Map.of("password", password));
            } catch (Throwable e) {
                // Restarting with an unchanged password is the common case, and Neo4j reports it as an error.
                if (!rootMessage(e).contains("Old password and new password cannot be the same")) {
                    failAndStop(dbms, "could not set the neo4j password: " + rootMessage(e));
                }
            }
        }

        System.out.println("KG-PASSWORD " + (setPassword ? "set" : "unchanged") + " in "
                + (System.nanoTime() - readyAt) / 1_000_000 + " ms");
        System.out.println("KG-READY neo4j=" + Version.getNeo4jVersion());
        System.out.flush();
        stopped.await();
    }

    /**
     * Tells kg, through the launcher's log, when Neo4j gives up on a database while running; on a panic, stops the
     * JVM at once. A panic is what a transaction log write that failed half-way (a full disk) causes; shutting
     * down normally afterwards writes to that log again, behind the torn entry, and the store could then never be
     * recovered (seen: recovery reading the garbage ran out of heap). Halting leaves a torn tail only, which
     * recovery at the next start cuts off like after a crash, and Neo4j needs a restart after a panic anyway.
     */
    private static final class Reporter extends DatabaseEventListenerAdapter {
        static volatile boolean panicked;

        @Override
        public void databasePanic(DatabaseEventContext event) {
            panicked = true;
            report(event, "panic");
            // Half a second lets the failing client get its error (the panicked database refuses new commits);
            // a SIGTERM meanwhile halts too (see the shutdown hook).
            Thread halt = new Thread(() -> {
                try {
                    Thread.sleep(500);
                } catch (InterruptedException ignored) {
                    // halting anyway
                }
                Runtime.getRuntime().halt(3);
            }, "kg-halt-after-panic");
            halt.start();
        }

        @Override
        public void databaseOutOfDiskSpace(DatabaseEventContext event) {
            report(event, "out-of-disk");
        }

        private static void report(DatabaseEventContext event, String what) {
            String cause = event instanceof ExceptionalDatabaseEvent e && e.getCause() != null
                    ? rootMessage(e.getCause()) : "see logs/debug.log";
            System.out.println("KG-DATABASE " + event.getDatabaseName() + " " + what + ": " + cause);
            System.out.flush();
        }
    }

    private static String failureOf(DatabaseManagementService dbms, GraphDatabaseService db) {
        try {
            DatabaseStateService states = ((GraphDatabaseAPI) dbms.database("system")).getDependencyResolver()
                    .resolveDependency(DatabaseStateService.class);
            Optional<Throwable> cause = states.causeOfFailure(((GraphDatabaseAPI) db).databaseId());
            if (cause.isPresent()) {
                return rootMessage(cause.get());
            }
        } catch (Throwable e) {
            return "unknown (" + rootMessage(e) + "), see logs/debug.log";
        }
        return "unknown, see logs/debug.log";
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

    /** Reports, then shuts down cleanly (the other databases checkpoint) before exiting. */
    private static void failAndStop(DatabaseManagementService dbms, String message) {
        System.out.println("KG-ERROR " + message);
        System.out.flush();
        try {
            dbms.shutdown();
        } catch (Throwable ignored) {
            // exiting anyway
        }
        Runtime.getRuntime().halt(1);
    }
}
