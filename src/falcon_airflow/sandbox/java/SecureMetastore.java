// The secure sandbox's Hive metastore: thrift with SASL (Kerberos GSSAPI, or a delegation token it issued) on
// 127.0.0.1 only, over the Hive 2.3 metastore classes inside pyspark. Run with the Hadoop client configuration of the
// secure clusters and pyspark's jars:
//   java -Djava.security.krb5.conf=KRB5 -cp 'HADOOP_CONF_DIR:PYSPARK_JARS/*' SecureMetastore.java PORT PRINCIPAL
//        KEYTAB [key=value ...]
// The key=value pairs are Hive settings (the Derby URL, the warehouse folder, proxy users ...).
// Prints "READY thrift://127.0.0.1:PORT" once it serves, then runs until it is stopped.
import java.net.InetSocketAddress;

import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.metastore.HiveMetaStore;
import org.apache.hadoop.hive.metastore.MetaStoreUtils;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.hadoop.hive.shims.ShimLoader;
import org.apache.hadoop.hive.thrift.HadoopThriftAuthBridge;
import org.apache.hadoop.hive.thrift.HiveDelegationTokenManager;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authorize.ProxyUsers;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TServerSocket;
import org.apache.thrift.transport.TTransportFactory;

public class SecureMetastore {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String principal = args[1];
        String keytab = args[2];
        HiveConf conf = new HiveConf(SecureMetastore.class);
        conf.set("hadoop.security.authentication", "kerberos");
        conf.setBoolVar(HiveConf.ConfVars.METASTORE_USE_THRIFT_SASL, true);
        conf.setVar(HiveConf.ConfVars.METASTORE_KERBEROS_PRINCIPAL, principal);
        conf.setVar(HiveConf.ConfVars.METASTORE_KERBEROS_KEYTAB_FILE, keytab);
        for (int index = 3; index < args.length; index++) {
            String[] pair = args[index].split("=", 2);
            conf.set(pair[0], pair[1]);
        }
        UserGroupInformation.setConfiguration(conf);
        // Who may act for whom (hadoop.proxyuser.*): asked when a client wants a delegation token for another user.
        ProxyUsers.refreshSuperUserGroupsConfiguration(conf);
        HadoopThriftAuthBridge.Server sasl = ShimLoader.getHadoopThriftAuthBridge().createServer(keytab, principal);
        HiveMetaStore.HMSHandler base = new HiveMetaStore.HMSHandler("sandbox", conf, false);
        HiveDelegationTokenManager tokens = new HiveDelegationTokenManager();
        tokens.startDelegationTokenSecretManager(conf, base, HadoopThriftAuthBridge.Server.ServerMode.METASTORE);
        sasl.setSecretManager(tokens.getSecretManager());
        // The handler's get_delegation_token asks HiveMetaStore's own (static) manager, which only its main sets.
        java.lang.reflect.Field manager = HiveMetaStore.class.getDeclaredField("delegationTokenManager");
        manager.setAccessible(true);
        manager.set(null, tokens);
        ThriftHiveMetastore.Iface handler = HiveMetaStore.newRetryingHMSHandler(base, conf, false);
        // Each call runs as the authenticated client (a proxy of the metastore's own login), so HDFS checks the
        // client's rights on the warehouse, not the metastore's.
        TProcessor processor = sasl.wrapProcessor(new ThriftHiveMetastore.Processor<>(handler));
        TTransportFactory transports = sasl.createTransportFactory(MetaStoreUtils.getMetaStoreSaslProperties(conf));
        TServerSocket socket = new TServerSocket(new InetSocketAddress("127.0.0.1", port));
        TThreadPoolServer.Args serverArgs = new TThreadPoolServer.Args(socket)
                .processor(processor)
                .transportFactory(transports)
                .protocolFactory(new TBinaryProtocol.Factory())
                .minWorkerThreads(2)
                .maxWorkerThreads(16);
        TServer server = new TThreadPoolServer(serverArgs);
        Runtime.getRuntime().addShutdownHook(new Thread(server::stop));
        System.out.println("READY thrift://127.0.0.1:" + port);
        System.out.flush();
        server.serve();
    }
}
