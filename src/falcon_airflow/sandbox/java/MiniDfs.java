// Two (or more) in-process HDFS clusters for the local sandbox: each its own namenode and datanode, RPC and WebHDFS
// on 127.0.0.1. Run with the hadoop-client-minicluster jars:
//   java -cp 'JARS/*' MiniDfs.java NAME:RPC_PORT:HTTP_PORT:DIR [...]
// Prints "READY" once every cluster answers, then runs until it is stopped (SIGTERM shuts the clusters down).
import java.io.File;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

public class MiniDfs {
    public static void main(String[] args) throws Exception {
        List<MiniDFSCluster> clusters = new ArrayList<>();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (MiniDFSCluster cluster : clusters) {
                cluster.shutdown();
            }
        }));
        for (String spec : args) {
            String[] parts = spec.split(":", 4);
            String name = parts[0];
            int rpcPort = Integer.parseInt(parts[1]);
            int httpPort = Integer.parseInt(parts[2]);
            File base = new File(parts[3]);
            Configuration conf = new Configuration();
            conf.set("dfs.namenode.http-address", "127.0.0.1:" + httpPort);
            conf.set("dfs.namenode.rpc-bind-host", "127.0.0.1");
            conf.set("dfs.namenode.http-bind-host", "127.0.0.1");
            conf.setBoolean("dfs.webhdfs.enabled", true);
            // One user runs every job of the sandbox; HDFS permissions would only get in the way of the tests.
            conf.setBoolean("dfs.permissions.enabled", false);
            // Every job runs as its entity's user through spark-submit --proxy-user (the user of this JVM proxying
            // it); the namenode allows that only to a configured proxy user, as a real cluster's core-site does.
            String self = System.getProperty("user.name");
            conf.set("hadoop.proxyuser." + self + ".hosts", "*");
            conf.set("hadoop.proxyuser." + self + ".groups", "*");
            conf.setInt("dfs.replication", 1);
            conf.set("hadoop.tmp.dir", new File(base, "tmp").getAbsolutePath());
            MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, base)
                    .clusterId(name)
                    .nameNodePort(rpcPort)
                    .nameNodeHttpPort(httpPort)
                    .numDataNodes(1)
                    .format(true)
                    .build();
            cluster.waitActive();
            clusters.add(cluster);
            System.out.println("CLUSTER " + name + " hdfs://127.0.0.1:" + cluster.getNameNodePort());
        }
        System.out.println("READY");
        System.out.flush();
        Thread.currentThread().join();
    }
}
