// A Hive metastore client of the secure sandbox for the tests, with Hive's own client (SASL GSSAPI as a principal
// logged in from its keytab, or "-" "-" for no Kerberos credentials at all). Run with the sandbox's client
// configuration folder and pyspark's jars on the classpath:
//   java -Djava.security.krb5.conf=KRB5_CONF -cp 'HADOOP_CONF:PYSPARK_JARS/*' HiveAs.java URI SERVICE_PRINCIPAL
//        PRINCIPAL KEYTAB OP...
// OP is add=DB.TABLE/K1=V1/K2=V2 (the database and the table, partitioned by the keys named, made when missing,
// then the partition) or partitions=DB.TABLE (the partitions' names, comma-separated). Each prints one line:
// "ok OP RESULT" or "error OP EXCEPTION-CLASS MESSAGE".
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.security.UserGroupInformation;

public class HiveAs {
    public static void main(String[] args) throws Exception {
        HiveConf conf = new HiveConf(HiveAs.class);
        conf.setVar(HiveConf.ConfVars.METASTOREURIS, args[0]);
        conf.setBoolVar(HiveConf.ConfVars.METASTORE_USE_THRIFT_SASL, true);
        conf.setVar(HiveConf.ConfVars.METASTORE_KERBEROS_PRINCIPAL, args[1]);
        conf.setIntVar(HiveConf.ConfVars.METASTORETHRIFTCONNECTIONRETRIES, 1);
        UserGroupInformation.setConfiguration(conf);
        UserGroupInformation user = args[2].equals("-")
                ? UserGroupInformation.createRemoteUser("nobody")
                : UserGroupInformation.loginUserFromKeytabAndReturnUGI(args[2], args[3]);
        for (int index = 4; index < args.length; index++) {
            String op = args[index];
            String[] parts = op.split("=", 2);
            try {
                String result = user.doAs((PrivilegedExceptionAction<String>) () -> {
                    HiveMetaStoreClient client = new HiveMetaStoreClient(conf);
                    try {
                        return run(client, parts[0], parts[1]);
                    } finally {
                        client.close();
                    }
                });
                System.out.println("ok " + op + " " + result);
            } catch (Exception problem) {
                Throwable cause = problem;
                while (cause.getCause() != null) {
                    cause = cause.getCause();
                }
                String message = String.valueOf(cause.getMessage()).split("\n", 2)[0];
                System.out.println("error " + op + " " + cause.getClass().getName() + " " + message);
            }
        }
    }

    private static String run(HiveMetaStoreClient client, String kind, String argument) throws Exception {
        String[] pieces = argument.split("/");
        String[] name = pieces[0].split("\\.", 2);
        if (kind.equals("partitions")) {
            return String.join(",", client.listPartitionNames(name[0], name[1], (short) -1));
        }
        List<String> keys = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (int index = 1; index < pieces.length; index++) {
            String[] pair = pieces[index].split("=", 2);
            keys.add(pair[0]);
            values.add(pair[1]);
        }
        try {
            client.getDatabase(name[0]);
        } catch (NoSuchObjectException missing) {
            client.createDatabase(new Database(name[0], "", null, new HashMap<>()));
        }
        Table table;
        try {
            table = client.getTable(name[0], name[1]);
        } catch (NoSuchObjectException missing) {
            List<FieldSchema> partitionKeys = new ArrayList<>();
            for (String key : keys) {
                partitionKeys.add(new FieldSchema(key, "string", ""));
            }
            StorageDescriptor sd = new StorageDescriptor();
            sd.setCols(List.of(new FieldSchema("line", "string", "")));
            sd.setInputFormat("org.apache.hadoop.mapred.TextInputFormat");
            sd.setOutputFormat("org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat");
            sd.setSerdeInfo(new SerDeInfo("text", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
                    new HashMap<>()));
            table = new Table(name[1], name[0], "", 0, 0, 0, sd, partitionKeys, new HashMap<>(), null, null,
                    "MANAGED_TABLE");
            client.createTable(table);
            table = client.getTable(name[0], name[1]);
        }
        StorageDescriptor sd = new StorageDescriptor(table.getSd());
        List<String> specs = new ArrayList<>();
        for (int index = 0; index < keys.size(); index++) {
            specs.add(keys.get(index) + "=" + values.get(index));
        }
        sd.setLocation(table.getSd().getLocation() + "/" + String.join("/", specs));
        Partition partition = new Partition(values, name[0], name[1], 0, 0, sd, new HashMap<>());
        client.add_partition(partition);
        return "added";
    }
}
