// The secure sandbox's Kerberos KDC and Kerberized HDFS clusters, in one JVM. Run with the minicluster and minikdc
// jars:
//   java -cp 'MINICLUSTER/*:MINIKDC/*' SecureMiniDfs.java STATE_DIR AIRFLOW_USER OWNER OUTSIDER NAME:RPC:HTTP [...]
// Starts Hadoop's MiniKdc on 127.0.0.1 (the clients' krb5.conf is written by the sandbox from the KDC line), one
// keytab per principal in STATE_DIR/keytabs, then each cluster with Kerberos RPC, block access tokens, SASL data
// transfer and SPNEGO in front of WebHDFS.
// Prints "KDC REALM HOST:PORT", a "CLUSTER" line per cluster, then "READY"; runs until it is stopped.
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.UserGroupInformation;

public class SecureMiniDfs {
    public static void main(String[] args) throws Exception {
        File state = new File(args[0]);
        String airflow = args[1];
        String owner = args[2];
        String outsider = args[3];
        File keytabs = new File(state, "keytabs");
        keytabs.mkdirs();

        List<MiniDFSCluster> clusters = new ArrayList<>();
        MiniKdc[] kdcHolder = new MiniKdc[1];
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (MiniDFSCluster cluster : clusters) {
                cluster.shutdown();
            }
            if (kdcHolder[0] != null) {
                kdcHolder[0].stop();
            }
        }));

        Properties kdcConf = MiniKdc.createConf();
        kdcConf.setProperty(MiniKdc.ORG_NAME, "FALCON");
        kdcConf.setProperty(MiniKdc.ORG_DOMAIN, "SANDBOX");
        kdcConf.setProperty(MiniKdc.KDC_BIND_ADDRESS, "127.0.0.1");
        MiniKdc kdc = new MiniKdc(kdcConf, new File(state, "kdc"));
        kdc.start();  // also points this JVM's java.security.krb5.conf at the KDC's krb5.conf
        kdcHolder[0] = kdc;
        String realm = kdc.getRealm();

        // One principal for the namenode and the datanode: the clusters share this JVM, whose Kerberos login is one
        // (UserGroupInformation's login user), so each server's login would replace the other's. Its host part is
        // "localhost", what the client's _HOST gives for 127.0.0.1 (its canonical name through /etc/hosts); the
        // sandbox names the principal in full rather than through _HOST, as a datanode here would turn _HOST into
        // "127.0.0.1" (MiniDFSCluster sets dfs.datanode.hostname so). HTTP clients may name either host.
        File service = new File(keytabs, "hdfs.keytab");
        String hdfsPrincipal = "hdfs/localhost@" + realm;
        kdc.createPrincipal(service, "hdfs/localhost", "HTTP/localhost", "HTTP/127.0.0.1");
        // The secure YARN's ResourceManager and NodeManager (their own JVM, SecureMiniYarn.java).
        kdc.createPrincipal(new File(keytabs, "yarn.keytab"), "yarn/localhost");
        // The secure Hive metastore (its own JVM, SecureMetastore.java).
        kdc.createPrincipal(new File(keytabs, "hive.keytab"), "hive/127.0.0.1");
        kdc.createPrincipal(new File(keytabs, airflow + ".keytab"), airflow);
        kdc.createPrincipal(new File(keytabs, owner + ".keytab"), owner);
        kdc.createPrincipal(new File(keytabs, outsider + ".keytab"), outsider);
        System.out.println("KDC " + realm + " " + kdc.getHost() + ":" + kdc.getPort());
        System.out.flush();

        for (int index = 4; index < args.length; index++) {
            String[] parts = args[index].split(":", 3);
            String name = parts[0];
            int rpcPort = Integer.parseInt(parts[1]);
            int httpPort = Integer.parseInt(parts[2]);
            File base = new File(new File(state, "hdfs"), name);
            Configuration conf = new Configuration();
            conf.set("hadoop.security.authentication", "kerberos");
            conf.set("dfs.namenode.kerberos.principal", hdfsPrincipal);
            conf.set("dfs.namenode.keytab.file", service.getAbsolutePath());
            conf.set("dfs.datanode.kerberos.principal", hdfsPrincipal);
            conf.set("dfs.datanode.keytab.file", service.getAbsolutePath());
            // "*": the SPNEGO filter accepts every HTTP/ principal of the keytab, whichever host name a client used.
            conf.set("dfs.web.authentication.kerberos.principal", "*");
            conf.set("dfs.web.authentication.kerberos.keytab", service.getAbsolutePath());
            // WebHDFS's filter starts from the hadoop.http.authentication.* settings, whose default type is simple
            // (user.name=...), and only then reads dfs.web.authentication.*: the type has to be said in both.
            for (String prefix : new String[] {"hadoop.http.authentication.", "dfs.web.authentication."}) {
                conf.set(prefix + "type", "kerberos");
                conf.set(prefix + "kerberos.principal", "*");
                conf.set(prefix + "kerberos.keytab", service.getAbsolutePath());
                conf.setBoolean(prefix + "simple.anonymous.allowed", false);
            }
            conf.setBoolean("dfs.block.access.token.enable", true);
            // SASL on the data transfer protocol instead of privileged ports (which need root and jsvc).
            conf.set("dfs.data.transfer.protection", "authentication");
            // A datanode with SASL but no privileged ports also wants dfs.http.policy=HTTPS_ONLY (TLS keystores for
            // every web endpoint); the sandbox keeps plain HTTP and tells the datanode not to check.
            conf.setBoolean("ignore.secure.ports.for.testing", true);
            conf.setBoolean("dfs.webhdfs.enabled", true);
            conf.setBoolean("dfs.permissions.enabled", true);
            conf.set("dfs.namenode.http-address", "127.0.0.1:" + httpPort);
            conf.set("dfs.namenode.rpc-bind-host", "127.0.0.1");
            conf.set("dfs.namenode.http-bind-host", "127.0.0.1");
            // Airflow's service principal acts for the entities' owners (spark-submit --proxy-user, WebHDFS doas).
            conf.set("hadoop.proxyuser." + airflow + ".hosts", "*");
            conf.set("hadoop.proxyuser." + airflow + ".groups", "*");
            // The metastore works on the warehouse as the user who called it.
            conf.set("hadoop.proxyuser.hive.hosts", "*");
            conf.set("hadoop.proxyuser.hive.groups", "*");
            conf.setInt("dfs.replication", 1);
            conf.set("hadoop.tmp.dir", new File(base, "tmp").getAbsolutePath());
            UserGroupInformation.setConfiguration(conf);
            MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, base)
                    .clusterId(name)
                    .nameNodePort(rpcPort)
                    .nameNodeHttpPort(httpPort)
                    .numDataNodes(1)
                    .format(true)
                    .build();
            cluster.waitActive();
            clusters.add(cluster);
            // As the namenode's principal (HDFS's superuser): a private home folder for each user, a shared /tmp.
            UserGroupInformation superuser = UserGroupInformation.loginUserFromKeytabAndReturnUGI(
                    hdfsPrincipal, service.getAbsolutePath());
            superuser.doAs((java.security.PrivilegedExceptionAction<Void>) () -> {
                FileSystem fs = cluster.getFileSystem();
                for (String user : new String[] {airflow, owner, outsider}) {
                    Path home = new Path("/user/" + user);
                    fs.mkdirs(home);
                    fs.setOwner(home, user, user);
                    fs.setPermission(home, new FsPermission((short) 0700));
                }
                // The metastore's warehouse: every user makes tables in it, each keeps their own (sticky bit).
                fs.mkdirs(new Path("/warehouse"));
                fs.setOwner(new Path("/warehouse"), "hive", "hive");
                fs.setPermission(new Path("/warehouse"), new FsPermission((short) 01777));
                fs.mkdirs(new Path("/tmp"));
                fs.setPermission(new Path("/tmp"), new FsPermission((short) 01777));
                return null;
            });
            System.out.println("CLUSTER " + name + " hdfs://127.0.0.1:" + cluster.getNameNodePort());
            System.out.flush();
        }
        System.out.println("READY");
        System.out.flush();
        Thread.currentThread().join();
    }
}
