public class FalconAirflowPlanDump {
    private final java.util.HashMap names = new java.util.HashMap();
    private final java.util.HashMap methods = new java.util.HashMap();
    private final java.util.IdentityHashMap types = new java.util.IdentityHashMap();

    // {"schema": <the plan's output schema as StructType JSON>, "plan": [flat pre-order nodes, as toJSON]}; kept in
    // a StringBuilder that the caller reads in small pieces (py4j answers over 8 KB stall on delayed ACKs).
    public synchronized StringBuilder build(Object tree) {
        StringBuilder out = new StringBuilder(8192);
        out.append("{\"schema\":");
        if (tree instanceof org.apache.spark.sql.catalyst.plans.logical.LogicalPlan) {
            out.append(((org.apache.spark.sql.catalyst.plans.logical.LogicalPlan) tree).schema().json());
        } else out.append("null");
        out.append(",\"plan\":");
        flatten((org.apache.spark.sql.catalyst.trees.TreeNode) tree, out);
        out.append('}');
        return out;
    }

    // The names of a case class's fields: productElementName (generated code, fast), then the second parameter
    // list of named expressions (exprId, qualifier); Scala reflection (slow on first use) only when that fails.
    private String[] fieldNames(scala.Product product) {
        Class cls = product.getClass();
        String[] cached = (String[]) names.get(cls);
        if (cached != null) return cached;
        try {
            int arity = product.productArity();
            java.util.ArrayList found = new java.util.ArrayList();
            for (int i = 0; i < arity; i++) {
                String name = product.productElementName(i);
                if (name == null || name.length() == 0) throw new IllegalStateException("unnamed field");
                found.add(name);
            }
            if (product instanceof org.apache.spark.sql.catalyst.expressions.NamedExpression) {
                if (!found.contains("exprId")) found.add("exprId");
                if (!found.contains("qualifier")) found.add("qualifier");
            }
            cached = (String[]) found.toArray(new String[0]);
        } catch (Throwable error) {
            try {
                scala.collection.Seq seq =
                    org.apache.spark.sql.catalyst.ScalaReflection$.MODULE$.getConstructorParameterNames(cls);
                cached = new String[seq.size()];
                for (int i = 0; i < cached.length; i++) cached[i] = (String) seq.apply(i);
            } catch (Throwable again) {
                cached = new String[0];
            }
        }
        names.put(cls, cached);
        return cached;
    }

    private Object accessor(Object target, String name) {
        if (target == null) return null;
        String key = target.getClass().getName() + "#" + name;
        Object method = methods.get(key);
        if (method == null) {
            try {
                method = target.getClass().getMethod(name, new Class[0]);
            } catch (Throwable error) {
                method = Boolean.FALSE;
            }
            methods.put(key, method);
        }
        if (method == Boolean.FALSE) return null;
        try {
            return ((java.lang.reflect.Method) method).invoke(target, new Object[0]);
        } catch (Throwable error) {
            return null;
        }
    }

    private void flatten(org.apache.spark.sql.catalyst.trees.TreeNode root, StringBuilder out) {
        out.append('[');
        java.util.ArrayDeque stack = new java.util.ArrayDeque();
        stack.push(root);
        boolean first = true;
        while (!stack.isEmpty()) {
            org.apache.spark.sql.catalyst.trees.TreeNode node =
                (org.apache.spark.sql.catalyst.trees.TreeNode) stack.pop();
            if (!first) out.append(',');
            first = false;
            java.util.ArrayList kids = new java.util.ArrayList();
            scala.collection.Iterator it = node.children().iterator();
            while (it.hasNext()) kids.add(it.next());
            node(node, kids, out);
            for (int i = kids.size() - 1; i >= 0; i--) stack.push(kids.get(i));
        }
        out.append(']');
    }

    private static int childIndex(java.util.ArrayList kids, Object value) {
        for (int i = 0; i < kids.size(); i++) if (kids.get(i) == value) return i;
        return -1;
    }

    private void node(org.apache.spark.sql.catalyst.trees.TreeNode node, java.util.ArrayList kids, StringBuilder out) {
        out.append("{\"class\":");
        String name = node.getClass().getName();
        string(name, out);
        out.append(",\"num-children\":").append(kids.size());
        if (node instanceof scala.Product) fields((scala.Product) node, kids, out);
        if (kids.isEmpty() && name.endsWith(".LogicalRelation")) relation(node, out);
        if (kids.isEmpty() && name.endsWith(".HiveTableRelation")) {
            out.append(",\"falconTable\":");
            table(accessor(node, "tableMeta"), out);
        }
        out.append('}');
    }

    // Where a file relation or a catalog table reads from, so that the walker needs no py4j call per leaf.
    private void relation(Object node, StringBuilder out) {
        try {
            Object catalogTable = accessor(node, "catalogTable");
            if (catalogTable instanceof scala.Option && ((scala.Option) catalogTable).isDefined()) {
                out.append(",\"falconTable\":");
                table(((scala.Option) catalogTable).get(), out);
                return;
            }
            Object relation = accessor(node, "relation");
            if (relation == null) return;
            out.append(",\"falconRelation\":");
            string(relation.getClass().getName(), out);
            if (!relation.getClass().getName().endsWith(".HadoopFsRelation")) return;
            Object roots = accessor(accessor(relation, "location"), "rootPaths");
            if (!(roots instanceof scala.collection.Seq)) return;
            out.append(",\"falconRootPaths\":[");
            scala.collection.Iterator it = ((scala.collection.Seq) roots).iterator();
            boolean first = true;
            while (it.hasNext()) {
                if (!first) out.append(',');
                first = false;
                string(String.valueOf(it.next()), out);
            }
            out.append(']');
        } catch (Throwable error) {
            // the walker asks through py4j instead
        }
    }

    private void table(Object catalogTable, StringBuilder out) {
        if (catalogTable == null) { out.append("null"); return; }
        Object identifier = accessor(catalogTable, "identifier");
        Object database = identifier == null ? null : accessor(identifier, "database");
        Object location = accessor(accessor(catalogTable, "storage"), "locationUri");
        out.append("{\"table\":");
        string(String.valueOf(identifier == null ? null : accessor(identifier, "table")), out);
        out.append(",\"database\":");
        if (database instanceof scala.Option && ((scala.Option) database).isDefined()) {
            string(String.valueOf(((scala.Option) database).get()), out);
        } else out.append("null");
        out.append(",\"location\":");
        if (location instanceof scala.Option && ((scala.Option) location).isDefined()) {
            string(String.valueOf(((scala.Option) location).get()), out);
        } else out.append("null");
        out.append('}');
    }

    private void fields(scala.Product product, java.util.ArrayList kids, StringBuilder out) {
        String[] fields = fieldNames(product);
        int arity = product.productArity();
        for (int i = 0; i < fields.length; i++) {
            Object value = i < arity ? product.productElement(i) : accessor(product, fields[i]);
            out.append(',');
            string(fields[i], out);
            out.append(':');
            value(value, kids, out);
        }
    }

    private static boolean simple(Object value) {
        return value == null || value instanceof String || value instanceof Boolean || value instanceof Integer
            || value instanceof Long || value instanceof Short || value instanceof Byte;
    }

    private static boolean convertible(Object value) {
        return simple(value) || value instanceof org.apache.spark.sql.catalyst.trees.TreeNode
            || value instanceof org.apache.spark.sql.catalyst.expressions.ExprId
            || value instanceof org.apache.spark.sql.types.DataType || value instanceof scala.Option
            || value instanceof scala.collection.Seq || value instanceof scala.Tuple2
            || value instanceof org.apache.spark.sql.catalyst.plans.JoinType
            || (value instanceof scala.Product
                && value.getClass().getName().startsWith("org.apache.spark.sql.catalyst.expressions."))
            || (value instanceof scala.Product && ((scala.Product) value).productArity() == 0);
    }

    private void value(Object value, java.util.ArrayList kids, StringBuilder out) {
        if (value == null) { out.append("null"); return; }
        if (value instanceof org.apache.spark.sql.catalyst.trees.TreeNode) {
            int index = childIndex(kids, value);
            if (index >= 0) out.append(index);
            else flatten((org.apache.spark.sql.catalyst.trees.TreeNode) value, out);
            return;
        }
        if (value instanceof String) { string((String) value, out); return; }
        if (value instanceof Boolean || value instanceof Integer || value instanceof Long || value instanceof Short
                || value instanceof Byte) {
            out.append(value.toString());
            return;
        }
        if (value instanceof org.apache.spark.sql.catalyst.expressions.ExprId) {
            out.append("{\"id\":").append(((org.apache.spark.sql.catalyst.expressions.ExprId) value).id()).append('}');
            return;
        }
        if (value instanceof org.apache.spark.sql.types.DataType) {
            String json = (String) types.get(value);
            if (json == null) {
                json = ((org.apache.spark.sql.types.DataType) value).json();
                types.put(value, json);
            }
            out.append(json);
            return;
        }
        if (value instanceof scala.Option) {
            scala.Option option = (scala.Option) value;
            if (option.isEmpty()) out.append("null"); else value(option.get(), kids, out);
            return;
        }
        if (value instanceof scala.collection.Seq) {
            scala.collection.Seq seq = (scala.collection.Seq) value;
            if (seq.nonEmpty() && !convertible(seq.head())) { out.append("null"); return; }
            boolean allKids = seq.nonEmpty();
            scala.collection.Iterator it = seq.iterator();
            while (allKids && it.hasNext()) allKids = childIndex(kids, it.next()) >= 0;
            out.append('[');
            it = seq.iterator();
            boolean first = true;
            while (it.hasNext()) {
                if (!first) out.append(',');
                first = false;
                Object item = it.next();
                if (allKids) out.append(childIndex(kids, item)); else value(item, kids, out);
            }
            out.append(']');
            return;
        }
        if (value instanceof scala.Tuple2) {
            scala.Tuple2 pair = (scala.Tuple2) value;
            out.append("{\"_1\":");
            value(pair._1(), kids, out);
            out.append(",\"_2\":");
            value(pair._2(), kids, out);
            out.append('}');
            return;
        }
        if (value instanceof org.apache.spark.sql.catalyst.plans.JoinType || (value instanceof scala.Product
                && value.getClass().getName().startsWith("org.apache.spark.sql.catalyst.expressions."))) {
            scala.Product product = (scala.Product) value;
            out.append(product.productArity() == 0 ? "{\"object\":" : "{\"product-class\":");
            string(value.getClass().getName(), out);
            if (product.productArity() > 0) fields(product, kids, out);
            out.append('}');
            return;
        }
        if (value instanceof scala.Product && ((scala.Product) value).productArity() == 0) {
            out.append("{\"object\":");
            string(value.getClass().getName(), out);
            out.append('}');
            return;
        }
        out.append("null");
    }

    private static void string(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c < 0x20 || (c >= 0xD800 && c <= 0xDFFF)) {
                String hex = Integer.toHexString(c);
                out.append("\\u");
                for (int k = hex.length(); k < 4; k++) out.append('0');
                out.append(hex);
            } else out.append(c);
        }
        out.append('"');
    }
}
