import java.io.File;
import java.io.FileInputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import java.util.TreeMap;

import javax.xml.bind.JAXBContext;
import javax.xml.bind.Unmarshaller;
import javax.xml.bind.ValidationEvent;
import javax.xml.bind.ValidationEventHandler;
import javax.xml.transform.stream.StreamSource;

import com.sun.jersey.api.json.JSONJAXBContext;

import org.apache.falcon.entity.v0.Entity;
import org.apache.falcon.entity.v0.EntityType;

/**
 * Reads bodies the way the stock Falcon 0.9 client does and prints what it got.
 *
 * The client reads an XML answer with a plain JAXB unmarshaller of the result class, and a JSON answer with Jersey's
 * JSON reader in its default (mapped) configuration: FalconClient registers no JAXB context of its own. An entity
 * definition is read with the entity type's own unmarshaller, which validates against Falcon's XSD and fails on any
 * error (Entity.fromString). Every validation event the unmarshallers report is printed too, so a body that reads
 * only partly (an unknown enum name, a date JAXB cannot parse) shows.
 *
 * Usage: java FalconBodies.java MANIFEST, each line of MANIFEST "case TAB class TAB xml|json|entity TAB file".
 * Output: "case path=value" lines, "case EVENT message" lines and "case ERROR message" lines.
 */
public class FalconBodies {

    private static final SimpleDateFormat ISO = new SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'");

    public static void main(String[] args) throws Exception {
        ISO.setTimeZone(TimeZone.getTimeZone("UTC"));
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        for (String line : Files.readAllLines(new File(args[0]).toPath(), StandardCharsets.UTF_8)) {
            if (line.isEmpty()) {
                continue;
            }
            String[] parts = line.split("\t");
            String name = parts[0];
            final List<String> events = new ArrayList<String>();
            ValidationEventHandler handler = new ValidationEventHandler() {
                @Override
                public boolean handleEvent(ValidationEvent event) {
                    events.add(event.getMessage());
                    return true;
                }
            };
            try {
                Object read = read(parts[1], parts[2], new File(parts[3]), handler);
                for (String event : events) {
                    out.println(name + " EVENT " + event.replace("\n", " "));
                }
                TreeMap<String, String> fields = new TreeMap<String, String>();
                dump("", read, fields, 0);
                for (Map.Entry<String, String> field : fields.entrySet()) {
                    out.println(name + " " + field.getKey() + "=" + field.getValue());
                }
            } catch (Throwable problem) {
                for (String event : events) {
                    out.println(name + " EVENT " + event.replace("\n", " "));
                }
                out.println(name + " ERROR " + String.valueOf(problem).replace("\n", " "));
            }
        }
    }

    private static Object read(String className, String format, File file, ValidationEventHandler handler)
        throws Exception {
        if ("entity".equals(format)) {
            EntityType type = EntityType.getEnum(className);
            Unmarshaller unmarshaller = type.getUnmarshaller();  // validating, fails on any error
            Reader reader = new InputStreamReader(new FileInputStream(file), StandardCharsets.UTF_8);
            try {
                return ((Entity) unmarshaller.unmarshal(reader)).getName();
            } finally {
                reader.close();
            }
        }
        Class<?> type = Class.forName("org.apache.falcon.resource." + className);
        Unmarshaller unmarshaller = JAXBContext.newInstance(type).createUnmarshaller();
        unmarshaller.setEventHandler(handler);
        if ("xml".equals(format)) {
            // as Jersey's reader of an @XmlRootElement class: the document's root element chooses the class
            Object read = unmarshaller.unmarshal(new StreamSource(file));
            if (!type.isInstance(read)) {
                throw new IllegalStateException("the root element made a " + read.getClass().getName());
            }
            return read;
        }
        Reader reader = new InputStreamReader(new FileInputStream(file), StandardCharsets.UTF_8);
        try {
            return JSONJAXBContext.getJSONUnmarshaller(unmarshaller).unmarshalFromJSON(reader, type);
        } finally {
            reader.close();
        }
    }

    private static String quote(String text) {
        return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t");
    }

    private static void dump(String path, Object value, Map<String, String> fields, int depth) throws Exception {
        if (depth > 12) {
            throw new IllegalStateException("too deep at " + path);
        }
        if (value == null) {
            fields.put(path, "null");
        } else if (value instanceof String) {
            fields.put(path, quote((String) value));
        } else if (value instanceof Number || value instanceof Boolean || value instanceof Character) {
            fields.put(path, String.valueOf(value));
        } else if (value instanceof Enum) {
            fields.put(path, ((Enum<?>) value).name());
        } else if (value instanceof Date) {
            fields.put(path, ISO.format((Date) value));
        } else if (value.getClass().isArray()) {
            int length = Array.getLength(value);
            fields.put(path + ".length", String.valueOf(length));
            for (int index = 0; index < length; index++) {
                dump(path + "[" + index + "]", Array.get(value, index), fields, depth + 1);
            }
        } else if (value instanceof Collection) {
            dump(path, ((Collection<?>) value).toArray(), fields, depth);
        } else if (value instanceof Map) {
            Map<?, ?> map = (Map<?, ?>) value;
            fields.put(path + ".size", String.valueOf(map.size()));
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                dump(path + "{" + entry.getKey() + "}", entry.getValue(), fields, depth + 1);
            }
        } else {
            for (Class<?> type = value.getClass(); type != null && type != Object.class; type = type.getSuperclass()) {
                for (Field field : type.getDeclaredFields()) {
                    if (Modifier.isStatic(field.getModifiers()) || field.isSynthetic()) {
                        continue;
                    }
                    field.setAccessible(true);
                    dump(path.isEmpty() ? field.getName() : path + "." + field.getName(), field.get(value), fields,
                        depth + 1);
                }
            }
        }
    }
}
