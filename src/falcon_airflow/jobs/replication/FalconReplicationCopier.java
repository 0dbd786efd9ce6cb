import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

public class FalconReplicationCopier {
    private final Map filesystems = new HashMap();
    private final List opened = new ArrayList();
    private final Set folders = new HashSet();
    private Configuration conf;
    private FsPermission fileMode;
    private int buffer;

    /** The driver's Hadoop settings, as key NUL value NUL ... over this JVM's defaults, and the buffer size. */
    public void configure(String settings, int buffer) {
        Configuration fresh = new Configuration();
        String[] parts = settings.split("\u0000", -1);
        for (int i = 0; i + 1 < parts.length; i += 2) {
            fresh.set(parts[i], parts[i + 1]);
        }
        use(fresh, buffer);
    }

    /** At most this many bytes per second written by this copier (one copy task), all its threads together; 0 or
     *  less: unlimited. DistCp's -bandwidth, per map. */
    public void limit(long bytesPerSecond) {
        bandwidth = bytesPerSecond;
    }

    private long bandwidth = 0;
    private long paceStart = 0;
    private long paced = 0;

    private void pace(int count) throws InterruptedException {
        if (bandwidth <= 0) {
            return;
        }
        long wait;
        synchronized (this) {
            if (paceStart == 0) {
                paceStart = System.nanoTime();
            }
            paced += count;
            wait = paceStart + (long) (paced * 1e9 / bandwidth) - System.nanoTime();
        }
        if (wait > 0) {
            Thread.sleep(wait / 1000000L, (int) (wait % 1000000L));
        }
    }

    /** A copy of the driver's own Hadoop configuration (the task runs in the driver's JVM). */
    public void share(Configuration driver, int buffer) {
        use(new Configuration(driver), buffer);
    }

    private void use(Configuration settings, int size) {
        conf = settings;
        buffer = size;
        // the mode Hadoop's local file system gives a new file: the default less the configured umask
        fileMode = FsPermission.getFileDefault().applyUMask(FsPermission.getUMask(conf));
    }

    /** One private instance per scheme and authority. Of a checksummed file system (file://) the raw one: the
     *  copies are checksummed here, so no .crc companions are written and none are read twice. */
    private synchronized FileSystem fs(Path path) throws IOException {
        URI uri = path.toUri();
        String root = uri.getScheme() + "://" + uri.getAuthority();
        FileSystem fs = (FileSystem) filesystems.get(root);
        if (fs == null) {
            FileSystem instance = FileSystem.newInstance(uri, conf);
            opened.add(instance);
            fs = instance instanceof ChecksumFileSystem ? ((ChecksumFileSystem) instance).getRawFileSystem()
                                                       : instance;
            filesystems.put(root, fs);
        }
        return fs;
    }

    /** Stream buffers no larger than the file: a stream allocates (and zeroes) its buffer on opening. */
    private int streamBuffer(long length) {
        return (int) Math.max(4096, Math.min(buffer, length));
    }

    /** Copy every source NUL target NUL length triple (targets overwritten); per file one line "copied crc
     *  read-back crc" or "!error": the first CRC32 is of the bytes read from the source, the second of the copy
     *  read back from the target. */
    public String copy(String triples, boolean times, boolean permissions) {
        String[] parts = triples.split("\u0000", -1);
        byte[] bytes = new byte[buffer];
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i + 2 < parts.length; i += 3) {
            int mark = lines.length();
            try {
                Path source = new Path(parts[i]);
                Path target = new Path(parts[i + 1]);
                int size = streamBuffer(Long.parseLong(parts[i + 2]));
                FileSystem from = fs(source);
                FileSystem to = fs(target);
                CRC32 sent = new CRC32();
                long copied = 0;
                Path written = target;
                InputStream in = from.open(source, size);
                try {
                    OutputStream out;
                    // exactly Hadoop's local file system: a subclass may create files its own way
                    File created = to.getClass() == RawLocalFileSystem.class
                        ? created((RawLocalFileSystem) to, target) : null;
                    if (created == null) {
                        out = to.create(target, true, size);
                    } else {
                        written = new Path(created.toURI());
                        out = to.append(written, size);
                    }
                    try {
                        int count;
                        while ((count = in.read(bytes, 0, bytes.length)) > 0) {
                            sent.update(bytes, 0, count);
                            out.write(bytes, 0, count);
                            copied += count;
                            pace(count);
                        }
                    } finally {
                        out.close();
                    }
                } finally {
                    in.close();
                }
                if (written != target && !to.rename(written, target)) {
                    throw new IOException("cannot rename " + written + " to " + target);
                }
                if (times || permissions) {
                    FileStatus status = from.getFileStatus(source);
                    if (times) {
                        to.setTimes(target, status.getModificationTime(), status.getAccessTime());
                    }
                    if (permissions) {
                        to.setPermission(target, status.getPermission());
                    }
                }
                lines.append(copied).append(' ').append(sent.getValue()).append(' ');
                checksum(to, target, size, bytes, lines);
            } catch (Exception error) {
                lines.setLength(mark);
                failed(error, lines);
            }
            lines.append('\n');
        }
        return lines.toString();
    }

    /** An empty file beside the target, with the mode RawLocalFileSystem.create gives a file, or null when there
     *  is none (the name is too long to take a prefix and suffix). Without its native library Hadoop sets that
     *  mode by forking chmod, about 7 ms of CPU for every file; here the file comes from an exclusive create in
     *  Java (FileUtil.createLocalTempFile) and the mode from FileUtil.setPermission, which uses Java primitives
     *  whenever the group and other bits agree. The copy is written through append and renamed to its name. */
    private File created(RawLocalFileSystem fs, Path target) throws IOException {
        Path parent = target.getParent();
        if (parent != null && !made(parent)) {
            if (!fs.mkdirs(parent)) {
                throw new IOException("cannot create the folder " + parent);
            }
            remember(parent);
        }
        File file;
        try {
            file = FileUtil.createLocalTempFile(fs.pathToFile(target), ".falcon-copy-", false);
        } catch (IOException tooLong) {
            return null;
        }
        FileUtil.setPermission(file, fileMode);
        return file;
    }

    private synchronized boolean made(Path folder) {
        return folders.contains(folder);
    }

    private synchronized void remember(Path folder) {
        folders.add(folder);
    }

    /** Per source NUL target NUL length triple one line "bytes crc bytes crc" (both read), or "!error". */
    public String compare(String triples) {
        String[] parts = triples.split("\u0000", -1);
        byte[] bytes = new byte[buffer];
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i + 2 < parts.length; i += 3) {
            int mark = lines.length();
            try {
                Path source = new Path(parts[i]);
                Path target = new Path(parts[i + 1]);
                int size = streamBuffer(Long.parseLong(parts[i + 2]));
                checksum(fs(source), source, size, bytes, lines);
                lines.append(' ');
                checksum(fs(target), target, size, bytes, lines);
            } catch (Exception error) {
                lines.setLength(mark);
                failed(error, lines);
            }
            lines.append('\n');
        }
        return lines.toString();
    }

    private void checksum(FileSystem fs, Path path, int size, byte[] bytes, StringBuilder lines) throws IOException {
        CRC32 crc = new CRC32();
        long total = 0;
        InputStream in = fs.open(path, size);
        try {
            int count;
            while ((count = in.read(bytes, 0, bytes.length)) > 0) {
                crc.update(bytes, 0, count);
                total += count;
            }
        } finally {
            in.close();
        }
        lines.append(total).append(' ').append(crc.getValue());
    }

    private static void failed(Exception error, StringBuilder lines) {
        String text = String.valueOf(error).trim();
        int end = text.indexOf('\n');
        lines.append('!').append((end < 0 ? text : text.substring(0, end)).trim());
    }

    public void close() {
        for (int i = 0; i < opened.size(); i++) {
            try {
                ((FileSystem) opened.get(i)).close();
            } catch (Exception ignored) {
                // best effort: every copy is closed already
            }
        }
    }
}
