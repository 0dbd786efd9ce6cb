{{/*
Names, labels and computed settings shared by the templates.
*/}}

{{/* The chart name, or nameOverride. */}}
{{- define "falcon-airflow.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every resource name: fullnameOverride, else "<release>-<name>".
The Airflow chart's values (airflow.volumes, airflow.extraEnvFrom, ...) are not templated, so they refer to
these resources by literal names: values.yaml sets fullnameOverride so that the names are known in advance.
*/}}
{{- define "falcon-airflow.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name (include "falcon-airflow.name" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* Chart name and version, for the helm.sh/chart label. */}}
{{- define "falcon-airflow.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels that identify this release's objects (stable: usable in selectors). */}}
{{- define "falcon-airflow.selectorLabels" -}}
app.kubernetes.io/name: {{ include "falcon-airflow.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of every object of the chart; add app.kubernetes.io/component per object. */}}
{{- define "falcon-airflow.labels" -}}
helm.sh/chart: {{ include "falcon-airflow.chart" . }}
{{ include "falcon-airflow.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: falcon-airflow
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Resource names (the Airflow chart's values refer to the ConfigMaps by these names). */}}
{{- define "falcon-airflow.entitiesConfigMapName" -}}
{{- printf "%s-entities" (include "falcon-airflow.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "falcon-airflow.configMapName" -}}
{{- printf "%s-config" (include "falcon-airflow.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "falcon-airflow.sparkConfigMapName" -}}
{{- printf "%s-spark" (include "falcon-airflow.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "falcon-airflow.sparkRoleName" -}}
{{- printf "%s-spark" (include "falcon-airflow.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The service account of Spark drivers (cluster deploy mode) and executors. */}}
{{- define "falcon-airflow.sparkServiceAccountName" -}}
{{- if .Values.spark.serviceAccount.create }}
{{- default (printf "%s-spark" (include "falcon-airflow.fullname" .) | trunc 63 | trimSuffix "-") .Values.spark.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.spark.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The image Spark executors run: spark.image, else the Airflow image of the Airflow values (ours: Python, the
falcon-airflow package, PySpark with its jars and Java 17, so executors match the driver's Python and Spark).
*/}}
{{- define "falcon-airflow.sparkImage" -}}
{{- $airflow := .Values.airflow | default dict }}
{{- $repository := .Values.spark.image.repository | default $airflow.defaultAirflowRepository }}
{{- $tag := .Values.spark.image.tag | default $airflow.defaultAirflowTag | default .Chart.AppVersion }}
{{- if not $repository }}
{{- fail "spark.image.repository (or airflow.defaultAirflowRepository) must name the falcon-airflow image" }}
{{- end }}
{{- printf "%s:%s" $repository (toString $tag) }}
{{- end }}

{{/* Where the Airflow chart mounts the git-sync checkout: <airflowHome>/dags/<link, "repo" by default>. */}}
{{- define "falcon-airflow.gitSyncRoot" -}}
{{- $airflow := .Values.airflow | default dict }}
{{- $link := dig "dags" "gitSync" "link" "repo" $airflow }}
{{- printf "%s/dags/%s" ($airflow.airflowHome | default "/opt/airflow") $link }}
{{- end }}

{{/* FALCON_ENTITIES_DIR for the chosen entities source. */}}
{{- define "falcon-airflow.entitiesDir" -}}
{{- if eq .Values.entities.source "configMap" }}
{{- .Values.entities.mountPath }}
{{- else if eq .Values.entities.source "gitSync" }}
{{- printf "%s/%s" (include "falcon-airflow.gitSyncRoot" .) (.Values.entities.gitSync.subPath | trimPrefix "/") | trimSuffix "/" }}
{{- else }}
{{- fail (printf "entities.source must be configMap or gitSync, not %q" (toString .Values.entities.source)) }}
{{- end }}
{{- end }}

{{/* Airflow-style boolean. */}}
{{- define "falcon-airflow.bool" -}}
{{- ternary "True" "False" (eq (toString .) "true") }}
{{- end }}
