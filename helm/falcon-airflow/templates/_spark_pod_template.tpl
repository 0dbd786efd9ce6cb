{{/*
The pod template of Spark executors. Spark fills in the image, resources, environment (SPARK_DRIVER_URL,
SPARK_EXECUTOR_ID, ...) and the argument "executor"; the command runs what the entrypoint of Spark's own
images runs for executors, with the jars of the pyspark wheel.
*/}}
{{- define "falcon-airflow.executorPodTemplate" -}}
{{- $template := .Values.spark.executor.podTemplate -}}
apiVersion: v1
kind: Pod
metadata:
  labels:
    {{- include "falcon-airflow.selectorLabels" . | nindent 4 }}
    app.kubernetes.io/part-of: falcon-airflow
    app.kubernetes.io/component: spark-executor
    {{- with $template.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with $template.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  serviceAccountName: {{ include "falcon-airflow.sparkServiceAccountName" . }}
  securityContext:
    {{- toYaml $template.podSecurityContext | nindent 4 }}
  {{- with $template.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $template.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $template.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $template.priorityClassName }}
  priorityClassName: {{ . }}
  {{- end }}
  containers:
    - name: spark-executor
      securityContext:
        {{- toYaml $template.securityContext | nindent 8 }}
      command:
        - /bin/bash
        - -c
        - |
          set -eo pipefail
          spark_home="${SPARK_HOME:-$(python -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')}"
          mapfile -t java_opts < <(env | grep '^SPARK_JAVA_OPT_' | sort -t_ -k4 -n | sed 's/^[^=]*=//')
          pod_ip="$SPARK_EXECUTOR_POD_IP"
          if [[ "$pod_ip" == *:* ]]; then pod_ip="[$pod_ip]"; fi
          exec "${JAVA_HOME:+$JAVA_HOME/bin/}java" "${java_opts[@]}" \
            -Xms"$SPARK_EXECUTOR_MEMORY" -Xmx"$SPARK_EXECUTOR_MEMORY" \
            -cp "${SPARK_CONF_DIR:+$SPARK_CONF_DIR:}${SPARK_CLASSPATH:+$SPARK_CLASSPATH:}$spark_home/jars/*" \
            org.apache.spark.scheduler.cluster.k8s.KubernetesExecutorBackend \
            --driver-url "$SPARK_DRIVER_URL" --executor-id "$SPARK_EXECUTOR_ID" \
            --cores "$SPARK_EXECUTOR_CORES" --app-id "$SPARK_APPLICATION_ID" --hostname "$pod_ip" \
            --resourceProfileId "$SPARK_RESOURCE_PROFILE_ID" --podName "$SPARK_EXECUTOR_POD_NAME"
      {{- with $template.env }}
      env:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $template.volumeMounts }}
      volumeMounts:
        {{- toYaml . | nindent 8 }}
      {{- end }}
  {{- with $template.volumes }}
  volumes:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
