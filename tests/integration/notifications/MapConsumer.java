// A JMS consumer on ActiveMQ's OpenWire port, as Falcon's downstream systems had: it subscribes to the topics named
// on the command line, prints READY, then prints one JSON line per message received (topic, JMS type, map entries)
// until it has the number of messages asked for or the time is up.
// Usage: java -cp <activemq jars> MapConsumer.java BROKER_URL COUNT SECONDS TOPIC...

import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import javax.jms.Connection;
import javax.jms.MapMessage;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.Topic;
import org.apache.activemq.ActiveMQConnectionFactory;

public class MapConsumer {
    private static String quote(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        int wanted = Integer.parseInt(args[1]);
        long deadline = System.currentTimeMillis() + Long.parseLong(args[2]) * 1000L;
        Connection connection = new ActiveMQConnectionFactory(url).createConnection();
        connection.start();
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        List<MessageConsumer> consumers = new ArrayList<>();
        for (int i = 3; i < args.length; i++) {
            Topic topic = session.createTopic(args[i]);
            consumers.add(session.createConsumer(topic));
        }
        System.out.println("READY");
        System.out.flush();
        int received = 0;
        while (received < wanted && System.currentTimeMillis() < deadline) {
            for (MessageConsumer consumer : consumers) {
                Message message = consumer.receive(200);
                if (message == null) {
                    continue;
                }
                received++;
                StringBuilder line = new StringBuilder("{\"topic\": ");
                line.append(quote(((Topic) message.getJMSDestination()).getTopicName()));
                line.append(", \"type\": ").append(quote(message instanceof MapMessage ? "MapMessage"
                        : message.getClass().getSimpleName()));
                line.append(", \"persistent\": ").append(message.getJMSDeliveryMode() == 2);
                line.append(", \"expiration\": ").append(message.getJMSExpiration());
                line.append(", \"map\": {");
                if (message instanceof MapMessage) {
                    MapMessage map = (MapMessage) message;
                    Enumeration<?> names = map.getMapNames();
                    boolean first = true;
                    while (names.hasMoreElements()) {
                        String name = (String) names.nextElement();
                        line.append(first ? "" : ", ").append(quote(name)).append(": ").append(quote(map.getString(name)));
                        first = false;
                    }
                }
                System.out.println(line.append("}}"));
                System.out.flush();
            }
        }
        connection.close();
    }
}
