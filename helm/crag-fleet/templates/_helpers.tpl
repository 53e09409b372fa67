{{/* Names and labels shared by the templates. */}}
{{- define "crag.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "crag.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "crag.selector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: worker
{{- end -}}

{{- define "crag.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "crag.secretName" -}}
{{- .Values.existingSecret | default (printf "%s-env" (include "crag.fullname" .)) -}}
{{- end -}}

{{- define "crag.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "crag.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{/* Environment of every container: settings, secrets, and the shutdown grace. */}}
{{- define "crag.envFrom" -}}
- configMapRef:
    name: {{ include "crag.fullname" . }}-config
- secretRef:
    name: {{ include "crag.secretName" . }}
{{- end -}}

{{/* Restart pods when the settings they read change: the ConfigMap always, the Secret when
the chart makes it (an existingSecret is not the chart's to watch). */}}
{{- define "crag.checksums" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
{{- if not .Values.existingSecret }}
checksum/secret: {{ include (print .Template.BasePath "/secret.yaml") . | sha256sum }}
{{- end }}
{{- end -}}

{{/* The init container that holds a pod until `crag db upgrade` has brought the schema to head. */}}
{{- define "crag.waitForMigrations" -}}
- name: wait-for-migrations
  image: {{ include "crag.image" . | quote }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  args: ["db", "wait", "--timeout", {{ .Values.migrations.waitTimeoutSeconds | quote }}]
  env:
    - {name: HOME, value: /tmp}
  envFrom:
    {{- include "crag.envFrom" . | nindent 4 }}
  {{- with .Values.migrations.waitResources }}
  resources:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  securityContext:
    {{- toYaml .Values.securityContext | nindent 4 }}
  volumeMounts:
    - {name: tmp, mountPath: /tmp}
{{- end -}}

{{/* The broker Redis as KEDA needs it, from secrets.REDIS_URL (when the chart makes the Secret). */}}
{{- define "crag.redisUrl" -}}
{{- urlParse (required "secrets.REDIS_URL is required" .Values.secrets.REDIS_URL) | toJson -}}
{{- end -}}

{{- define "crag.redisUserinfo" -}}
{{- $url := include "crag.redisUrl" . | fromJson -}}
{{- $user := $url.userinfo | default "" -}}
{{- if contains ":" $user -}}
{{- $name := first (splitList ":" $user) -}}
{{- $password := join ":" (rest (splitList ":" $user)) -}}
{{- dict "username" (include "crag.urlUnescape" $name) "password" (include "crag.urlUnescape" $password) | toJson -}}
{{- else -}}
{{- dict "username" (include "crag.urlUnescape" $user) "password" "" | toJson -}}
{{- end -}}
{{- end -}}

{{/* The Secret key of the Redis ACL username KEDA logs in with, or nothing: with the chart's
Secret, when secrets.REDIS_URL names a user; with an existingSecret, keda.usernameKey. */}}
{{- define "crag.kedaUsernameKey" -}}
{{- if .Values.existingSecret -}}
{{- .Values.keda.usernameKey -}}
{{- else if (include "crag.redisUserinfo" . | fromJson).username -}}
{{- .Values.keda.usernameKey | default "KEDA_REDIS_USERNAME" -}}
{{- end -}}
{{- end -}}

{{/* Percent-decoding of printable ASCII (%XX or %xx), "%25" last so nothing is decoded twice.
KEDA wants the password as Redis knows it, not as the URL spells it. */}}
{{- define "crag.urlUnescape" -}}
{{- $s := . -}}
{{- range $i := untilStep 32 127 1 -}}
{{- if ne $i 37 -}}
{{- $s = replace (printf "%%%02X" $i) (printf "%c" $i) $s | replace (printf "%%%02x" $i) (printf "%c" $i) -}}
{{- end -}}
{{- end -}}
{{- replace "%25" "%" $s -}}
{{- end -}}
