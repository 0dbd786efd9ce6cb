// The plainest copy of a folder's files between two Hadoop file systems, for the replication benchmark's physical
// limit: list the source once, then THREADS threads each open, stream and close files (one FileSystem per side,
// shared, a fixed 128 KiB buffer), no checksum, no read-back, no staging. Run with the minicluster jar group:
//   java -cp 'JARS/*' RawHdfsCopy.java SOURCE_FOLDER TARGET_FOLDER THREADS [KEY=VALUE ...]
// KEY=VALUE pairs are Hadoop settings (e.g. the close retry wait). Prints "COPIED files bytes seconds", the
// seconds from the listing to the last close (the JVM's start-up and the compilation of this file excluded).
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

public class RawHdfsCopy {
    public static void main(String[] args) throws Exception {
        Path source = new Path(args[0]);
        Path target = new Path(args[1]);
        int threads = Integer.parseInt(args[2]);
        Configuration conf = new Configuration();
        for (int i = 3; i < args.length; i++) {
            int equals = args[i].indexOf('=');
            conf.set(args[i].substring(0, equals), args[i].substring(equals + 1));
        }
        FileSystem from = source.getFileSystem(conf);
        FileSystem to = target.getFileSystem(conf);
        long started = System.nanoTime();
        String root = from.makeQualified(source).toUri().getPath();
        List<Path> files = new ArrayList<>();
        RemoteIterator<LocatedFileStatus> listing = from.listFiles(source, true);
        while (listing.hasNext()) {
            files.add(listing.next().getPath());
        }
        AtomicInteger next = new AtomicInteger();
        AtomicLong bytes = new AtomicLong();
        List<Throwable> failures = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                byte[] buffer = new byte[1 << 17];
                try {
                    for (int index = next.getAndIncrement(); index < files.size(); index = next.getAndIncrement()) {
                        Path file = files.get(index);
                        String relative = file.toUri().getPath().substring(root.length());
                        try (InputStream in = from.open(file);
                             OutputStream out = to.create(new Path(target + relative), true)) {
                            int count;
                            while ((count = in.read(buffer)) > 0) {
                                out.write(buffer, 0, count);
                                bytes.addAndGet(count);
                            }
                        }
                    }
                } catch (Throwable problem) {
                    synchronized (failures) {
                        failures.add(problem);
                    }
                }
            });
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        if (!failures.isEmpty()) {
            failures.get(0).printStackTrace();
            System.exit(1);
        }
        System.out.println("COPIED " + files.size() + " " + bytes.get() + " " + seconds);
    }
}
