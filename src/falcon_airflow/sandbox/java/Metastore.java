// A Hive metastore thrift service on 127.0.0.1 only (HiveMetaStore's own main listens on every interface), over
// the Hive 2.3 metastore classes inside pyspark. Run with pyspark's jars:
//   java -cp 'PYSPARK_JARS/*' Metastore.java PORT [key=value ...]
// The key=value pairs are Hive settings (the Derby or PostgreSQL URL, the warehouse folder ...).
// Prints "READY" once it serves, then runs until it is stopped.
import java.net.InetSocketAddress;

import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.metastore.HiveMetaStore;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TServerSocket;
import org.apache.thrift.transport.TTransportFactory;

public class Metastore {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        HiveConf conf = new HiveConf(Metastore.class);
        for (int index = 1; index < args.length; index++) {
            String[] pair = args[index].split("=", 2);
            conf.set(pair[0], pair[1]);
        }
        ThriftHiveMetastore.Iface handler = HiveMetaStore.newRetryingHMSHandler("sandbox", conf, false);
        TServerSocket socket = new TServerSocket(new InetSocketAddress("127.0.0.1", port));
        TThreadPoolServer.Args serverArgs = new TThreadPoolServer.Args(socket)
                .processor(new ThriftHiveMetastore.Processor<>(handler))
                .transportFactory(new TTransportFactory())
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
