// The secure sandbox's YARN: one ResourceManager and one NodeManager with Kerberos on, every server on 127.0.0.1.
// Run with the minicluster jars and the sandbox's Hadoop configuration folder on the classpath (its core-site.xml
// and hdfs-site.xml say how to reach the Kerberized HDFS clusters, for this JVM and the localizers it starts) and
// the sandbox's krb5.conf:
//   java -Djava.security.krb5.conf=KRB5 -Dtest.build.data=DIR -cp 'CONF_DIR:JARS/*' SecureMiniYarn.java
//        CONF_DIR RM_PORT NM_MEMORY_MB NM_VCORES PRINCIPAL KEYTAB PROXY_USER DEFAULT_FS
// PRINCIPAL (from KEYTAB) is the ResourceManager's and the NodeManager's: both share this JVM, whose Kerberos login is
// one, as the secure HDFS clusters share theirs. The ResourceManager renews the applications' HDFS delegation tokens
// (it is the renewer Spark names, from yarn.resourcemanager.principal); PROXY_USER (Airflow's service principal)
// may submit applications for other users. Containers run as this JVM's OS user (DefaultContainerExecutor); what
// they do on HDFS is done with the application user's delegation tokens.
// Writes CONF_DIR/yarn-site.xml, prints "RM host:port", "WEBAPP host:port" and "READY", then runs until stopped.
import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;

public class SecureMiniYarn {
    public static void main(String[] args) throws Exception {
        try {
            run(args);
        } catch (Throwable problem) {
            // A half-started cluster keeps non-daemon threads alive: exit, so the sandbox sees the failure.
            problem.printStackTrace();
            System.exit(1);
        }
    }

    private static void run(String[] args) throws Exception {
        File confDir = new File(args[0]).getAbsoluteFile();
        int rmPort = Integer.parseInt(args[1]);
        int memoryMb = Integer.parseInt(args[2]);
        int vcores = Integer.parseInt(args[3]);
        String principal = args[4];
        String keytab = new File(args[5]).getAbsolutePath();
        String proxyUser = args[6];
        String defaultFs = args[7];
        MiniYARNCluster[] cluster = new MiniYARNCluster[1];
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (cluster[0] != null) {
                cluster[0].stop();
            }
        }));

        Configuration conf = new YarnConfiguration();  // core-site.xml and hdfs-site.xml come from the classpath
        conf.set("hadoop.security.authentication", "kerberos");
        conf.setBoolean("hadoop.security.authorization", false);  // no service-level ACL files in the sandbox
        conf.set("fs.defaultFS", defaultFs);
        // The ResourceManager's node-attribute store defaults to the default file system, where it may not write:
        // a local folder instead.
        conf.set("yarn.node-attribute.fs-store.root-dir",
                 new File(System.getProperty("test.build.data"), "node-attributes").toURI().toString());
        conf.set(YarnConfiguration.RM_PRINCIPAL, principal);
        conf.set(YarnConfiguration.RM_KEYTAB, keytab);
        conf.set(YarnConfiguration.NM_PRINCIPAL, principal);
        conf.set(YarnConfiguration.NM_KEYTAB, keytab);
        // The web UIs stay plain HTTP without SPNEGO (their REST API is read-only here).
        conf.set("hadoop.http.authentication.type", "simple");
        conf.setBoolean("hadoop.http.authentication.simple.anonymous.allowed", true);
        conf.set(YarnConfiguration.RM_WEBAPP_SPNEGO_USER_NAME_KEY, "");
        // Applications are submitted by Airflow's service principal for the entity's user (spark-submit
        // --proxy-user): the ResourceManager accepts that from a configured proxy user only.
        conf.set("hadoop.proxyuser." + proxyUser + ".hosts", "*");
        conf.set("hadoop.proxyuser." + proxyUser + ".groups", "*");
        // The localizer JVMs (started per application) read the same krb5.conf.
        conf.set("yarn.nodemanager.container-localizer.java.opts",
                 "-Xmx256m -Djava.security.krb5.conf=" + System.getProperty("java.security.krb5.conf"));
        UserGroupInformation.setConfiguration(conf);
        // MiniYARNCluster's servers skip their own keytab login (made for tests that run without Kerberos): this
        // JVM logs in once, for both.
        UserGroupInformation.loginUserFromKeytab(principal, keytab);

        conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_FIXED_PORTS, true);
        conf.set(YarnConfiguration.RM_HOSTNAME, "127.0.0.1");
        conf.set(YarnConfiguration.RM_BIND_HOST, "127.0.0.1");
        conf.set(YarnConfiguration.RM_ADDRESS, "127.0.0.1:" + rmPort);
        conf.set(YarnConfiguration.RM_SCHEDULER_ADDRESS, "127.0.0.1:0");
        conf.set(YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS, "127.0.0.1:0");
        conf.set(YarnConfiguration.RM_ADMIN_ADDRESS, "127.0.0.1:0");
        conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, "127.0.0.1:0");
        conf.set(YarnConfiguration.NM_BIND_HOST, "127.0.0.1");
        conf.set(YarnConfiguration.TIMELINE_SERVICE_BIND_HOST, "127.0.0.1");
        conf.setBoolean(YarnConfiguration.TIMELINE_SERVICE_ENABLED, false);

        // One small node, no memory policing, no disk-space health check (as the plain sandbox's YARN).
        conf.setInt(YarnConfiguration.YARN_MINICLUSTER_NM_PMEM_MB, memoryMb);
        conf.setInt(YarnConfiguration.NM_PMEM_MB, memoryMb);
        conf.setInt(YarnConfiguration.NM_VCORES, vcores);
        conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
        conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, memoryMb);
        conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES, vcores);
        conf.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
        conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
        conf.setFloat(YarnConfiguration.NM_MAX_PER_DISK_UTILIZATION_PERCENTAGE, 100.0f);
        conf.setLong(YarnConfiguration.NM_MIN_PER_DISK_FREE_SPACE_MB, 0);
        conf.setLong("yarn.nodemanager.disk-health-checker.min-free-space-per-disk-watermark-high-mb", 0);
        conf.setBoolean("yarn.nodemanager.disk-health-checker.disk-utilization-threshold.enabled", false);
        conf.setBoolean("yarn.nodemanager.disk-health-checker.disk-free-space-threshold.enabled", false);
        conf.set("yarn.scheduler.capacity.root.queues", "default");
        conf.set("yarn.scheduler.capacity.root.default.capacity", "100");
        conf.set("yarn.scheduler.capacity.root.default.maximum-capacity", "100");
        conf.set("yarn.scheduler.capacity.maximum-am-resource-percent", "0.5");
        conf.set("yarn.scheduler.capacity.node-locality-delay", "-1");

        String javaHome = System.getenv("JAVA_HOME");
        if (javaHome == null || javaHome.isEmpty()) {
            javaHome = System.getProperty("java.home");
        }
        // The containers' JVMs find the realm in the sandbox's krb5.conf, as a real node's in its /etc/krb5.conf.
        conf.set(YarnConfiguration.NM_ADMIN_USER_ENV, "MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX,JAVA_HOME=" + javaHome
                 + ",JAVA_TOOL_OPTIONS=-Djava.security.krb5.conf=" + System.getProperty("java.security.krb5.conf"));
        conf.setBoolean(YarnConfiguration.LOG_AGGREGATION_ENABLED, false);
        conf.setLong(YarnConfiguration.NM_SLEEP_DELAY_BEFORE_SIGKILL_MS, 250);
        conf.setLong(YarnConfiguration.NM_PROCESS_KILL_WAIT_MS, 1000);
        conf.setInt(YarnConfiguration.DEBUG_NM_DELETE_DELAY_SEC, 600);
        conf.setLong(YarnConfiguration.NM_LOG_RETAIN_SECONDS, 1);

        cluster[0] = new MiniYARNCluster("secureminiyarn", 1, 1, 1);
        cluster[0].init(conf);
        cluster[0].start();
        if (!cluster[0].waitForNodeManagersToConnect(120_000)) {
            throw new IllegalStateException("the NodeManager did not register with the ResourceManager");
        }
        Configuration live = cluster[0].getConfig();
        Configuration site = new Configuration(false);
        for (Map.Entry<String, String> entry : live) {
            if (entry.getKey().startsWith("yarn.")) {
                site.set(entry.getKey(), live.get(entry.getKey()));
            }
        }
        confDir.mkdirs();
        File target = new File(confDir, "yarn-site.xml");
        File temporary = new File(confDir, "yarn-site.xml.tmp");
        try (OutputStream out = new FileOutputStream(temporary)) {
            site.writeXml(out);
        }
        if (!temporary.renameTo(target)) {
            throw new IllegalStateException("cannot write " + target);
        }
        System.out.println("RM " + live.get(YarnConfiguration.RM_ADDRESS));
        System.out.println("WEBAPP " + live.get(YarnConfiguration.RM_WEBAPP_ADDRESS));
        System.out.println("READY");
        System.out.flush();
        Thread.currentThread().join();
    }
}
