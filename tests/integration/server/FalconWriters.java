import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;

import javax.xml.bind.JAXBContext;
import javax.xml.bind.Marshaller;
import javax.xml.bind.ValidationEvent;
import javax.xml.bind.ValidationEventHandler;
import javax.xml.bind.annotation.XmlAccessType;
import javax.xml.bind.annotation.XmlAccessorType;
import javax.xml.bind.annotation.XmlElement;
import javax.xml.bind.annotation.XmlElementWrapper;
import javax.xml.bind.annotation.XmlRootElement;
import javax.xml.transform.stream.StreamSource;

import com.sun.jersey.api.json.JSONConfiguration;
import com.sun.jersey.api.json.JSONJAXBContext;

import org.apache.falcon.resource.APIResult;
import org.apache.falcon.resource.EntityList;
import org.apache.falcon.resource.InstanceDependencyResult;
import org.apache.falcon.resource.InstancesResult;
import org.apache.falcon.resource.InstancesSummaryResult;
import org.apache.falcon.resource.TriageResult;

/**
 * Writes bodies the way Falcon 0.9's server did, with the real JAXB 2.2.3 and Jersey 1.9 JSON writers.
 *
 * Each case is an XML body written by falcon_airflow.server.bodies. It is read into Falcon's result class, then
 * written again: as XML by a plain JAXB marshaller to an output stream (Jersey's XML provider), and as JSON by
 * Jersey's JSON provider (JSONJAXBContext.getJSONMarshaller(marshaller).marshallToJSON(object, writer)), with the
 * marshaller of Falcon's JAXBContextResolver - the natural notation - for the classes it lists and of a plain JAXB
 * context - Jersey's default, mapped notation - for every other class. The two outputs are saved beside the input
 * (FILE.jaxb.xml, FILE.jersey.json) for the test to compare byte for byte with what bodies writes.
 *
 * The classes Falcon's 0.9 client jar does not have are declared here with the annotations of Falcon's own:
 * AdminResource.PropertyList (prism) and the 0.10 ExtensionJobList and ExtensionInstanceList.
 *
 * Usage: java FalconWriters.java MANIFEST, each line of MANIFEST "case TAB class TAB file".
 * Output: "case OK" or "case EVENT message" / "case ERROR message" lines.
 */
public class FalconWriters {

    /** The classes of Falcon's JAXBContextResolver: its JSON context, natural notation. */
    private static final Class<?>[] RESOLVER_TYPES = {
        InstancesResult.class,
        APIResult.class,
        InstancesResult.Instance.class,
        InstancesResult.WorkflowStatus.class,
        InstancesSummaryResult.class,
        InstancesSummaryResult.InstanceSummary.class,
        InstanceDependencyResult.class,
        TriageResult.class,
    };

    /** AdminResource.Property. */
    @XmlRootElement(name = "property")
    @XmlAccessorType(XmlAccessType.FIELD)
    public static class Property {
        public String key;
        public String value;
    }

    /** AdminResource.PropertyList. */
    @XmlRootElement(name = "properties")
    @XmlAccessorType(XmlAccessType.FIELD)
    public static class PropertyList {
        public List<Property> properties;
    }

    /** Falcon 0.10's ExtensionJobList.JobElement. */
    public static class JobElement {
        @XmlElement
        public String jobName;
        @XmlElement
        public EntityList jobEntities;
    }

    /** Falcon 0.10's ExtensionJobList. */
    @XmlRootElement(name = "extensionJobList")
    public static class ExtensionJobList {
        @XmlElement
        public int numJobs;
        @XmlElementWrapper(name = "jobs")
        public List<JobElement> job;
    }

    /** Falcon 0.10's ExtensionInstanceList.EntitySummary. */
    public static class ExtensionEntitySummary {
        @XmlElement
        public EntityList.EntityElement entityProfile;
        @XmlElement
        public InstancesResult.Instance[] instances;
    }

    /** Falcon 0.10's ExtensionInstanceList. */
    @XmlRootElement(name = "extensionInstanceList")
    public static class ExtensionInstanceList {
        @XmlElement
        public int numEntities;
        @XmlElementWrapper(name = "entitiesSummary")
        public List<ExtensionEntitySummary> entitySummary;
    }

    private static Class<?> resultClass(String name) throws ClassNotFoundException {
        if ("PropertyList".equals(name)) {
            return PropertyList.class;
        }
        if ("ExtensionJobList".equals(name)) {
            return ExtensionJobList.class;
        }
        if ("ExtensionInstanceList".equals(name)) {
            return ExtensionInstanceList.class;
        }
        return Class.forName("org.apache.falcon.resource." + name);
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        JAXBContext resolver = new JSONJAXBContext(JSONConfiguration.natural().build(), RESOLVER_TYPES);
        for (String line : Files.readAllLines(new File(args[0]).toPath(), StandardCharsets.UTF_8)) {
            if (line.isEmpty()) {
                continue;
            }
            String[] parts = line.split("\t");
            String name = parts[0];
            final StringBuilder events = new StringBuilder();
            ValidationEventHandler handler = new ValidationEventHandler() {
                @Override
                public boolean handleEvent(ValidationEvent event) {
                    events.append(name).append(" EVENT ").append(event.getMessage().replace("\n", " ")).append('\n');
                    return true;
                }
            };
            try {
                Class<?> type = resultClass(parts[1]);
                File file = new File(parts[2]);
                JAXBContext plain = JAXBContext.newInstance(type);
                javax.xml.bind.Unmarshaller unmarshaller = plain.createUnmarshaller();
                unmarshaller.setEventHandler(handler);
                Object body = unmarshaller.unmarshal(new StreamSource(file));
                if (!type.isInstance(body)) {
                    throw new IllegalStateException("the root element made a " + body.getClass().getName());
                }

                ByteArrayOutputStream xml = new ByteArrayOutputStream();
                plain.createMarshaller().marshal(body, xml);
                Files.write(new File(parts[2] + ".jaxb.xml").toPath(), xml.toByteArray());

                boolean natural = false;
                for (Class<?> listed : RESOLVER_TYPES) {
                    natural |= listed == type;
                }
                Marshaller marshaller = (natural ? resolver : plain).createMarshaller();
                ByteArrayOutputStream json = new ByteArrayOutputStream();
                Writer writer = new OutputStreamWriter(json, StandardCharsets.UTF_8);
                JSONJAXBContext.getJSONMarshaller(marshaller).marshallToJSON(body, writer);
                writer.flush();
                Files.write(new File(parts[2] + ".jersey.json").toPath(), json.toByteArray());
                out.print(events);
                out.println(name + " OK");
            } catch (Throwable problem) {
                out.print(events);
                out.println(name + " ERROR " + String.valueOf(problem).replace("\n", " "));
            }
        }
    }
}
