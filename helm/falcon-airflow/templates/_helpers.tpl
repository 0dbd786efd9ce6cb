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

{{/*
The Service of the Airflow chart's api-server, which serves Falcon's REST API at /falcon: the Airflow chart names
it "<release>-api-server" (useStandardNaming: "<airflow fullname>-api-server"). With airflow.enabled=false the
Airflow chart is another release, whose name is not known here.
*/}}
{{- define "falcon-airflow.apiServerService" -}}
{{- $airflow := .Values.airflow | default dict }}
{{- if not $airflow.enabled }}
{{- print "<airflow-release>-api-server" }}
{{- else if $airflow.useStandardNaming }}
{{- $fullname := "" }}
{{- if $airflow.fullnameOverride }}
{{- $fullname = $airflow.fullnameOverride }}
{{- else }}
{{- $name := default "airflow" $airflow.nameOverride }}
{{- $fullname = ternary .Release.Name (printf "%s-%s" .Release.Name $name) (contains $name .Release.Name) }}
{{- end }}
{{- printf "%s-api-server" ($fullname | trunc 63 | trimSuffix "-") }}
{{- else }}
{{- printf "%s-api-server" .Release.Name }}
{{- end }}
{{- end }}

{{/* The api-server Service's port: its first service port when given as a number, else ports.apiServer (8080). */}}
{{- define "falcon-airflow.apiServerPort" -}}
{{- $airflow := .Values.airflow | default dict }}
{{- $port := dig "ports" "apiServer" 8080 $airflow }}
{{- $servicePorts := dig "apiServer" "service" "ports" list $airflow }}
{{- if $servicePorts }}
{{- $first := (first $servicePorts).port }}
{{- if regexMatch "^[0-9]+$" (toString $first) }}
{{- $port = $first }}
{{- end }}
{{- end }}
{{- toString $port | int }}
{{- end }}

{{/* Falcon's REST API on the api-server, as clients in the release's namespace reach it. */}}
{{- define "falcon-airflow.falconUrl" -}}
{{- printf "http://%s:%s/falcon" (include "falcon-airflow.apiServerService" .) (include "falcon-airflow.apiServerPort" .) }}
{{- end }}

{{/*
A secret [falcon] setting (dict: Values, variable, option, what, names) is never given as text where it would land in
a ConfigMap or in the release's values: falcon.extraEnv (the settings ConfigMap), airflow.env and
airflow.config.falcon (airflow.cfg).
*/}}
{{- define "falcon-airflow.refuseSecretAsText" -}}
{{- $airflow := .Values.airflow | default dict }}
{{- $variable := .variable }}
{{- range $name, $_ := .Values.falcon.extraEnv }}
{{- if eq (upper $name) $variable }}
{{- fail (printf "falcon.extraEnv.%s would put %s in a ConfigMap: keep it in a Secret and name it with %s" $name $.what $.names) }}
{{- end }}
{{- end }}
{{- range ($airflow.env | default list) }}
{{- if eq (upper (toString .name)) $variable }}
{{- fail (printf "airflow.env sets %s as plain text: keep %s in a Secret and name it with %s" $variable $.what $.names) }}
{{- end }}
{{- end }}
{{- if hasKey (dig "config" "falcon" dict $airflow) .option }}
{{- fail (printf "airflow.config.falcon.%s would put %s in airflow.cfg, a ConfigMap: keep it in a Secret and name it with %s" .option .what .names) }}
{{- end }}
{{- end }}

{{/*
[falcon] authentication_secret comes from the Secret server.authentication names, to the api-server only, never
from a ConfigMap or a plain value: the Airflow chart's values must refer to that Secret (airflow.apiServer.env, or
airflow.secret), and nothing may set it as text (falcon.extraEnv, airflow.env, airflow.config.falcon).
*/}}
{{- define "falcon-airflow.checkAuthenticationSecret" -}}
{{- $variable := "AIRFLOW__FALCON__AUTHENTICATION_SECRET" }}
{{- $auth := .Values.server.authentication }}
{{- $airflow := .Values.airflow | default dict }}
{{- include "falcon-airflow.refuseSecretAsText" (dict "Values" .Values "variable" $variable "option" "authentication_secret" "what" "the cookie signing key" "names" "server.authentication.secretName and secretKey") }}
{{- $references := list }}
{{- range (dig "apiServer" "env" list $airflow) }}
{{- if eq (toString .name) $variable }}
{{- $reference := dig "valueFrom" "secretKeyRef" dict . }}
{{- $references = append $references (printf "%s/%s" (toString ($reference.name | default "")) (toString ($reference.key | default ""))) }}
{{- end }}
{{- end }}
{{- range ($airflow.secret | default list) }}
{{- if eq (toString .envName) $variable }}
{{- $references = append $references (printf "%s/%s" (toString (.secretName | default "")) (toString (.secretKey | default "value"))) }}
{{- end }}
{{- end }}
{{- if $auth.secretName }}
{{- $wanted := printf "%s/%s" $auth.secretName $auth.secretKey }}
{{- if or (ne (len $references) 1) (ne (first ($references | default (list ""))) $wanted) }}
{{- fail (printf "server.authentication names Secret %s key %s: airflow.apiServer.env must set %s from it (valueFrom.secretKeyRef name %s, key %s), once; found %v. The Airflow chart's values are not templated, so they repeat the names" $auth.secretName $auth.secretKey $variable $auth.secretName $auth.secretKey $references) }}
{{- end }}
{{- else if $references }}
{{- fail (printf "airflow.apiServer.env sets %s from a Secret (%v) but server.authentication.secretName is empty: set it to that Secret, or remove the entry" $variable $references) }}
{{- end }}
{{- end }}

{{/*
[falcon] store_url: where the store's DAG bundle (dag-processor, workers) reaches Falcon's server. store.url, else
the api-server Service of the Airflow chart of this release; nothing when Airflow is another release (whose name is
not known here: NOTES.txt asks for store.url).
*/}}
{{- define "falcon-airflow.storeUrl" -}}
{{- $airflow := .Values.airflow | default dict }}
{{- if .Values.store.url }}
{{- .Values.store.url | trimSuffix "/" }}
{{- else if $airflow.enabled }}
{{- include "falcon-airflow.falconUrl" . }}
{{- end }}
{{- end }}

{{/* The name of the store's DAG bundle in [dag_processor] dag_bundle_config_list. */}}
{{- define "falcon-airflow.storeBundleName" -}}
falcon-store
{{- end }}

{{/*
[dag_processor] dag_bundle_config_list with the database store (JSON): the store's bundle, the dags folder's (the
image's dags folder or the git-sync checkout, whose falcon_entities*.py build nothing then; [core] dags_folder is
its path), and store.extraBundles.
*/}}
{{- define "falcon-airflow.dagBundleConfigList" -}}
{{- $bundle := .Values.store.bundle }}
{{- $kwargs := merge (dict "refresh_interval" (int $bundle.refreshInterval)) (deepCopy ($bundle.kwargs | default dict)) }}
{{- $bundles := list
      (dict "name" (include "falcon-airflow.storeBundleName" .) "classpath" "falcon_airflow.dags.store_bundle.FalconStoreBundle" "kwargs" $kwargs)
      (dict "name" "dags-folder" "classpath" "airflow.dag_processing.bundles.local.LocalDagBundle" "kwargs" dict) }}
{{- $names := list (include "falcon-airflow.storeBundleName" .) "dags-folder" }}
{{- range (.Values.store.extraBundles | default list) }}
{{- if has .name $names }}
{{- fail (printf "store.extraBundles names bundle %q twice (falcon-store and dags-folder are the chart's)" .name) }}
{{- end }}
{{- $names = append $names .name }}
{{- $bundles = append $bundles (dict "name" .name "classpath" .classpath "kwargs" (.kwargs | default dict)) }}
{{- end }}
{{- toJson $bundles }}
{{- end }}

{{/*
[falcon] store_bundle_secret comes from the Secret store.bundleSecret names, to every Airflow container (the
api-server checks the bundle's requests with it, the dag-processor and the workers sign them): the Airflow chart's
`secret:` list (airflow.secret), which its scheduler, api-server, dag-processor, triggerer, workers and
KubernetesExecutor pod template all take, must refer to that Secret once. A component's own env would leave the
others without it, and nothing may set it as text.
*/}}
{{- define "falcon-airflow.checkStoreBundleSecret" -}}
{{- $variable := "AIRFLOW__FALCON__STORE_BUNDLE_SECRET" }}
{{- $bundleSecret := .Values.store.bundleSecret }}
{{- $airflow := .Values.airflow | default dict }}
{{- include "falcon-airflow.refuseSecretAsText" (dict "Values" .Values "variable" $variable "option" "store_bundle_secret" "what" "the store's bundle secret" "names" "store.bundleSecret.secretName and secretKey") }}
{{- range $component := list "apiServer" "dagProcessor" "scheduler" "triggerer" "workers" }}
{{- range (dig $component "env" list $airflow) }}
{{- if eq (upper (toString .name)) $variable }}
{{- fail (printf "airflow.%s.env sets %s for one component: the api-server, the dag-processor and the workers need the same one, from the Secret store.bundleSecret names, through airflow.secret" $component $variable) }}
{{- end }}
{{- end }}
{{- end }}
{{- if contains $variable (toString ($airflow.extraEnv | default "")) }}
{{- fail (printf "airflow.extraEnv sets %s: give it through airflow.secret, from the Secret store.bundleSecret names" $variable) }}
{{- end }}
{{- $references := list }}
{{- range ($airflow.secret | default list) }}
{{- if eq (toString .envName) $variable }}
{{- $references = append $references (printf "%s/%s" (toString (.secretName | default "")) (toString (.secretKey | default "value"))) }}
{{- end }}
{{- end }}
{{- if $bundleSecret.secretName }}
{{- $wanted := printf "%s/%s" $bundleSecret.secretName $bundleSecret.secretKey }}
{{- if or (ne (len $references) 1) (ne (first ($references | default (list ""))) $wanted) }}
{{- fail (printf "store.bundleSecret names Secret %s key %s: airflow.secret must set %s from it (envName %s, secretName %s, secretKey %s), once; found %v. The Airflow chart's values are not templated, so they repeat the names" $bundleSecret.secretName $bundleSecret.secretKey $variable $variable $bundleSecret.secretName $bundleSecret.secretKey $references) }}
{{- end }}
{{- else if $references }}
{{- fail (printf "airflow.secret sets %s from a Secret (%v) but store.bundleSecret.secretName is empty: set it to that Secret, or remove the entry" $variable $references) }}
{{- end }}
{{- end }}

{{/*
Falcon's distributed mode (falcon.colo, falcon.prism): a release is a colo or the Prism, not both, and a Prism
names its colos. [falcon] prism_secret comes from the Secret falcon.prism.secret names, to the api-server only
(airflow.apiServer.env, whose secretKeyRef must name it once), never as text. The Prism's TLS Secret
(falcon.prism.tls) must be mounted in the api-server at its mountPath by airflow.apiServer.extraVolumes and
extraVolumeMounts (the Airflow chart's values are not templated: they repeat the names).
*/}}
{{- define "falcon-airflow.checkPrism" -}}
{{- $variable := "AIRFLOW__FALCON__PRISM_SECRET" }}
{{- $colo := .Values.falcon.colo | default dict }}
{{- $prism := .Values.falcon.prism | default dict }}
{{- $airflow := .Values.airflow | default dict }}
{{- include "falcon-airflow.refuseSecretAsText" (dict "Values" .Values "variable" $variable "option" "prism_secret" "what" "the Prism's shared secret" "names" "falcon.prism.secret.secretName and secretKey") }}
{{- if and $prism.enabled (or $colo.name $colo.acceptWritesFrom) }}
{{- fail "falcon.prism.enabled makes this release the Prism: falcon.colo (name, acceptWritesFrom) is for a colo's release, behind it" }}
{{- end }}
{{- if and $prism.enabled (not $prism.colos) }}
{{- fail "falcon.prism.enabled needs falcon.prism.colos: the colos and their Falcon servers' URLs (colo: url)" }}
{{- end }}
{{- $secret := $prism.secret | default dict }}
{{- $references := list }}
{{- range (dig "apiServer" "env" list $airflow) }}
{{- if eq (upper (toString .name)) $variable }}
{{- $reference := dig "valueFrom" "secretKeyRef" dict . }}
{{- if not $reference }}
{{- fail (printf "airflow.apiServer.env sets %s as plain text: keep the Prism's shared secret in a Secret and name it with falcon.prism.secret.secretName and secretKey" $variable) }}
{{- end }}
{{- $references = append $references (printf "%s/%s" (toString ($reference.name | default "")) (toString ($reference.key | default ""))) }}
{{- end }}
{{- end }}
{{- if $secret.secretName }}
{{- $wanted := printf "%s/%s" $secret.secretName $secret.secretKey }}
{{- if or (ne (len $references) 1) (ne (first ($references | default (list ""))) $wanted) }}
{{- fail (printf "falcon.prism.secret names Secret %s key %s: airflow.apiServer.env must set %s from it (valueFrom.secretKeyRef name %s, key %s), once; found %v. The Airflow chart's values are not templated, so they repeat the names" $secret.secretName $secret.secretKey $variable $secret.secretName $secret.secretKey $references) }}
{{- end }}
{{- else if $references }}
{{- fail (printf "airflow.apiServer.env sets %s from a Secret (%v) but falcon.prism.secret.secretName is empty: set it to that Secret, or remove the entry" $variable $references) }}
{{- end }}
{{- $tls := $prism.tls | default dict }}
{{- if and $prism.enabled $tls.secretName }}
{{- $volumes := list }}
{{- range (dig "apiServer" "extraVolumes" list $airflow) }}
{{- if eq (toString (dig "secret" "secretName" "" .)) $tls.secretName }}
{{- $volumes = append $volumes (toString .name) }}
{{- end }}
{{- end }}
{{- $mounted := false }}
{{- range (dig "apiServer" "extraVolumeMounts" list $airflow) }}
{{- if and (has (toString .name) $volumes) (eq (trimSuffix "/" (toString .mountPath)) (trimSuffix "/" $tls.mountPath)) }}
{{- $mounted = true }}
{{- end }}
{{- end }}
{{- if not $mounted }}
{{- fail (printf "falcon.prism.tls names Secret %s: airflow.apiServer.extraVolumes must hold a volume of it (secret.secretName %s) and airflow.apiServer.extraVolumeMounts must mount that volume at %s. The Airflow chart's values are not templated, so they repeat the names" $tls.secretName $tls.secretName $tls.mountPath) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Kerberos (falcon.kerberos): a principal needs its keytab's Secret and the Secret a principal; the Secret must be
mounted at mountPath in every Airflow container by airflow.volumes and airflow.volumeMounts (the Airflow chart's
values are not templated: they repeat the names). Workers submit Spark jobs and check feeds with the keytab, the
triggerer checks deferred feeds, the api-server validates with it.
*/}}
{{- define "falcon-airflow.checkKerberos" -}}
{{- $kerberos := .Values.falcon.kerberos | default dict }}
{{- $airflow := .Values.airflow | default dict }}
{{- if and $kerberos.principal (not $kerberos.secretName) }}
{{- fail "falcon.kerberos.principal needs falcon.kerberos.secretName: the Secret holding its keytab" }}
{{- end }}
{{- if and $kerberos.secretName (not $kerberos.principal) }}
{{- fail "falcon.kerberos.secretName needs falcon.kerberos.principal: the principal whose keytab the Secret holds" }}
{{- end }}
{{- if $kerberos.secretName }}
{{- $volumes := list }}
{{- range ($airflow.volumes | default list) }}
{{- if eq (toString (dig "secret" "secretName" "" .)) $kerberos.secretName }}
{{- $volumes = append $volumes (toString .name) }}
{{- end }}
{{- end }}
{{- $mounted := false }}
{{- range ($airflow.volumeMounts | default list) }}
{{- if and (has (toString .name) $volumes) (eq (trimSuffix "/" (toString .mountPath)) (trimSuffix "/" $kerberos.mountPath)) }}
{{- $mounted = true }}
{{- end }}
{{- end }}
{{- if not $mounted }}
{{- fail (printf "falcon.kerberos names Secret %s: airflow.volumes must hold a volume of it (secret.secretName %s) and airflow.volumeMounts must mount that volume at %s, in every Airflow container. The Airflow chart's values are not templated, so they repeat the names" $kerberos.secretName $kerberos.secretName $kerberos.mountPath) }}
{{- end }}
{{- end }}
{{- end }}
