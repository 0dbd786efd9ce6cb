// An in-process YARN cluster for the local sandbox: one ResourceManager and one NodeManager, every server on
// 127.0.0.1, the default file system left as it is (file:///; jobs name their hdfs:// paths in full). Run with the
// minicluster jar group:
//   java -Dtest.build.data=DIR -cp 'JARS/*' MiniYarn.java CONF_DIR RM_PORT NM_MEMORY_MB NM_VCORES [SHUFFLE_CLASSPATH]
// With SHUFFLE_CLASSPATH (the mapreduce jar group, 'DIR/*') the NodeManager also offers MapReduce's shuffle service,
// which every MapReduce container asks for, so MapReduce jobs (DistCp) run here too.
// The YARN files (container work folders and logs) go under DIR/miniyarn. Writes CONF_DIR/yarn-site.xml with the
// running cluster's yarn.* settings (a HADOOP_CONF_DIR / YARN_CONF_DIR for spark-submit --master yarn), prints
// "WEBAPP host:port" and "READY" once the NodeManager has registered, then runs until it is stopped (SIGTERM
// shuts the cluster down and kills its containers).
import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;

public class MiniYarn {
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
        String shuffleClasspath = args.length > 4 ? args[4] : "";
        MiniYARNCluster[] cluster = new MiniYARNCluster[1];
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (cluster[0] != null) {
                cluster[0].stop();
            }
        }));

        Configuration conf = new YarnConfiguration();
        // With fixed ports MiniYARNCluster keeps the addresses given (port 0: any free one) instead of
        // <hostname>:0; the bind hosts keep every socket on the loopback.
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
        // Applications are submitted as their entity's user (spark-submit --proxy-user): the resource manager
        // accepts that from a configured proxy user only, as a real cluster's core-site says.
        String self = System.getProperty("user.name");
        conf.set("hadoop.proxyuser." + self + ".hosts", "*");
        conf.set("hadoop.proxyuser." + self + ".groups", "*");

        // One node sized for a small machine (MiniYARNCluster takes the memory from its own key); no memory
        // policing, and a nearly full disk must not mark the only node unhealthy.
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

        // The capacity scheduler with one queue (no capacity-scheduler.xml on the classpath); application
        // masters may take half the node, so two jobs run at once.
        conf.set("yarn.scheduler.capacity.root.queues", "default");
        conf.set("yarn.scheduler.capacity.root.default.capacity", "100");
        conf.set("yarn.scheduler.capacity.root.default.maximum-capacity", "100");
        conf.set("yarn.scheduler.capacity.maximum-am-resource-percent", "0.5");
        conf.set("yarn.scheduler.capacity.node-locality-delay", "-1");

        // Containers start $JAVA_HOME/bin/java: the JDK this JVM runs on.
        String javaHome = System.getenv("JAVA_HOME");
        if (javaHome == null || javaHome.isEmpty()) {
            javaHome = System.getProperty("java.home");
        }
        conf.set(YarnConfiguration.NM_ADMIN_USER_ENV, "MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX,JAVA_HOME=" + javaHome);
        conf.setBoolean(YarnConfiguration.LOG_AGGREGATION_ENABLED, false);
        conf.setLong(YarnConfiguration.NM_SLEEP_DELAY_BEFORE_SIGKILL_MS, 250);
        conf.setLong(YarnConfiguration.NM_PROCESS_KILL_WAIT_MS, 1000);
        // Finished containers' folders and logs stay ten minutes for reading; handing the logs to the deletion
        // service after a second keeps the NodeManager's stop from waiting on them.
        conf.setInt(YarnConfiguration.DEBUG_NM_DELETE_DELAY_SEC, 600);
        conf.setLong(YarnConfiguration.NM_LOG_RETAIN_SECONDS, 1);

        if (!shuffleClasspath.isEmpty()) {
            offerShuffle(conf, shuffleClasspath);
        }

        cluster[0] = new MiniYARNCluster("miniyarn", 1, 1, 1);
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

    /** MapReduce's ShuffleHandler as the NodeManager's auxiliary service "mapreduce_shuffle", loaded from the given
     *  unshaded jars in a class loader of its own: only the types the NodeManager and the service exchange (the
     *  service API, configuration, YARN records, logging) come from this JVM's shaded minicluster jars, everything
     *  else (netty, MapReduce, Hadoop's internals) from the service's own classpath. */
    private static void offerShuffle(Configuration conf, String classpath) {
        String service = "mapreduce_shuffle";
        conf.setStrings(YarnConfiguration.NM_AUX_SERVICES, service);
        conf.set("yarn.nodemanager.aux-services." + service + ".class", "org.apache.hadoop.mapred.ShuffleHandler");
        conf.set("yarn.nodemanager.aux-services." + service + ".classpath", classpath);
        conf.set("yarn.nodemanager.aux-services." + service + ".system-classes",
                 "java.,javax.,jdk.,sun.,org.apache.hadoop.conf.,org.apache.hadoop.service.,"
                 + "org.apache.hadoop.yarn.,org.apache.commons.logging.,"
                 + "org.slf4j.,org.apache.log4j.");
        conf.setInt("mapreduce.shuffle.port", 0);  // any free port: the containers learn it from the NodeManager
    }
}
