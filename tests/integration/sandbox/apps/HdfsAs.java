// A Hadoop client of the secure sandbox for the tests, with Hadoop's own Kerberos code: logged in from a keytab, or
// with no Kerberos credentials at all ("-" for both). Run with the minicluster jars and the sandbox's client
// configuration folder first on the classpath (core-site.xml and hdfs-site.xml say Kerberos):
//   java -Djava.security.krb5.conf=KRB5_CONF -cp 'HADOOP_CONF:MINICLUSTER/*' HdfsAs.java PRINCIPAL KEYTAB OP...
// OP is write=URI=TEXT, read=URI, digest=URI (the content's SHA-256), list=URI, owner=URI (the owner of a file or folder) or folder=URI=USER (a folder
// made with its parents, given to USER with mode 0750: HDFS's superuser only) (hdfs:// for RPC, webhdfs:// for
// WebHDFS behind SPNEGO). Each prints one line: "ok OP RESULT" or "error OP EXCEPTION-CLASS MESSAGE", so one JVM answers every question of a test.
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.UserGroupInformation;

public class HdfsAs {
    public static void main(String[] args) throws Exception {
        Configuration conf = new Configuration();
        UserGroupInformation.setConfiguration(conf);
        UserGroupInformation user = args[0].equals("-")
                ? UserGroupInformation.createRemoteUser("nobody")
                : UserGroupInformation.loginUserFromKeytabAndReturnUGI(args[0], args[1]);
        for (int index = 2; index < args.length; index++) {
            String op = args[index];
            String[] parts = op.split("=", 3);
            try {
                String result = user.doAs((PrivilegedExceptionAction<String>) () -> run(conf, parts));
                System.out.println("ok " + op + " " + result);
            } catch (Exception problem) {
                String message = String.valueOf(problem.getMessage()).split("\n", 2)[0];
                System.out.println("error " + op + " " + problem.getClass().getName() + " " + message);
            }
        }
    }

    private static String run(Configuration conf, String[] parts) throws Exception {
        URI uri = URI.create(parts[1]);
        FileSystem fs = FileSystem.newInstance(uri, conf);
        try {
            Path path = new Path(uri);
            switch (parts[0]) {
                case "write":
                    try (OutputStream out = fs.create(path, true)) {
                        out.write(parts[2].getBytes(StandardCharsets.UTF_8));
                    }
                    return "written";
                case "read":
                    try (InputStream in = fs.open(path)) {
                        ByteArrayOutputStream content = new ByteArrayOutputStream();
                        in.transferTo(content);
                        return content.toString(StandardCharsets.UTF_8);
                    }
                case "list":
                    List<String> names = new ArrayList<>();
                    for (FileStatus status : fs.listStatus(path)) {
                        names.add(status.getPath().getName());
                    }
                    return String.join(",", names);
                case "digest":
                    try (InputStream in = fs.open(path)) {
                        byte[] hash = java.security.MessageDigest.getInstance("SHA-256").digest(in.readAllBytes());
                        return java.util.HexFormat.of().formatHex(hash);
                    }
                case "owner":
                    return fs.getFileStatus(path).getOwner();
                case "folder":
                    fs.mkdirs(path);
                    fs.setOwner(path, parts[2], parts[2]);
                    fs.setPermission(path, new org.apache.hadoop.fs.permission.FsPermission((short) 0750));
                    return "made";
                default:
                    throw new IllegalArgumentException("unknown operation " + parts[0]);
            }
        } finally {
            fs.close();
        }
    }
}
