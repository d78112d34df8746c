variable "project_id" {
  description = "The Google Cloud project of this environment (one project per environment)."
  type        = string
}

variable "region" {
  description = "Region of Cloud SQL, Cloud Run, Cloud Scheduler and Artifact Registry."
  type        = string
  default     = "europe-west1"
}

variable "environment" {
  description = "prod, staging or demo. Only demo gets the seed job (WordNet decks and the demo class)."
  type        = string
  validation {
    condition     = contains(["prod", "staging", "demo"], var.environment)
    error_message = "environment must be prod, staging or demo."
  }
}

variable "domain" {
  description = "The one HTTPS origin of the web client and the API, e.g. app.lexora.app. Point its A record at the load_balancer_ip output; the managed certificate is issued once it resolves."
  type        = string
}

variable "image" {
  description = "Image the services and jobs are created with. Cloud Build replaces it with each build's digest (Terraform ignores the image afterwards), so this matters only for the first apply."
  type        = string
  default     = "us-docker.pkg.dev/cloudrun/container/hello"
}

variable "job_image" {
  description = "Image the jobs are created with, until Cloud Build sets each job's own image (Terraform ignores it afterwards). Cloud Run's sample job image exits at once, so scheduled drains before the first build end in seconds instead of running to their timeout."
  type        = string
  default     = "us-docker.pkg.dev/cloudrun/container/job"
}

variable "git_url" {
  description = "The repository Cloud Build builds (cloudbuild.yaml's _GIT_URL, in output.build_substitutions): the newest-commit check's git ls-remote and the compat step's fetch of the previous release read it, so a fork or a private repository needs a URL the build can read."
  type        = string
  default     = "https://github.com/lexora-app/lexora.git"
}

variable "auth_project" {
  description = "The Google Identity Platform (Firebase Auth) project whose ID tokens the functions accept; empty means project_id."
  type        = string
  default     = ""
}

variable "terraform_admin" {
  description = "Email of the principal that runs terraform apply (a user or a service account). It becomes a Cloud SQL IAM user in cloudsqlsuperuser (the administrator's break-glass account) and, through the migrate job, a member of lexora_app for deploy/first-accounts."
  type        = string
}

variable "operators" {
  description = "IAM members (\"group:oncall@lexora.app\", \"user:...\") allowed to call the operator functions and to execute the drain and prune jobs by hand."
  type        = list(string)
  default     = []
}

variable "deployers" {
  description = "IAM members (\"group:platform@lexora.app\", \"user:...\") who may deploy besides Cloud Build: run deploy/rollback (traffic and job images, the rights Cloud Build has) and start a build as Cloud Build's account. The on-call group only reads unless it is listed here too."
  type        = list(string)
  default     = []
}

variable "smtp" {
  description = "The SMTP relay the drain sends email through (STARTTLS). Username and password are Secret Manager secrets (secrets.tf), never variables."
  type = object({
    host = string
    port = number
    from = string
  })
}

variable "sql_tier" {
  description = "Cloud SQL machine type (Enterprise edition)."
  type        = string
  default     = "db-custom-4-15360"
}

variable "sql_availability" {
  description = "REGIONAL (a standby in another zone; prod) or ZONAL (staging, demo)."
  type        = string
  default     = "REGIONAL"
}

variable "sql_max_connections" {
  description = "The instance's max_connections flag. The connection budget (locals.tf) must fit under it minus sql_operator_connections."
  type        = number
  default     = 580 # the connection budget's 534 (locals.tf; 536 in demo) plus the operators' 20, with room for two more public functions or fit tasks
}

variable "sql_operator_connections" {
  description = "Connections kept free for operators (psql through the Cloud SQL Auth Proxy, outboxctl; Cloud SQL Studio does not work, the instance denies the Data API) and Cloud SQL's own."
  type        = number
  default     = 20
}

variable "function_max_instances" {
  description = "Maximum instances of each public function's service (operator functions get 1, authoring functions authoring_max_instances)."
  type        = number
  default     = 4
}

variable "authoring_max_instances" {
  description = "Maximum instances of each of the teachers' deck-authoring functions (functions.tf.json authoring_functions): human-paced calls, 20 concurrent requests per instance."
  type        = number
  default     = 1
}

variable "fit_tasks" {
  description = "Parallel tasks of each fit execution; they split the learners by the hash of their id (pkg/fitting)."
  type        = number
  default     = 1
  validation {
    condition     = var.fit_tasks >= 1 && var.fit_tasks == floor(var.fit_tasks)
    error_message = "fit_tasks is a whole number, at least 1."
  }
}

variable "drain_tasks" {
  description = "Parallel tasks of each drain execution; they share the work through FOR UPDATE SKIP LOCKED."
  type        = number
  default     = 2
  validation {
    condition     = var.drain_tasks >= 1 && var.drain_tasks == floor(var.drain_tasks)
    error_message = "drain_tasks is a whole number, at least 1."
  }
}

variable "drain_run_seconds" {
  description = "How long one drain execution runs in loop mode (LISTEN hint plus polling); just under the one-minute schedule (terraform_data.drain_bound in locals.tf checks it against the period and the task timeout)."
  type        = number
  default     = 58
  validation {
    condition     = var.drain_run_seconds >= 1 && var.drain_run_seconds == floor(var.drain_run_seconds)
    error_message = "drain_run_seconds is a whole number of seconds, at least 1."
  }
}

variable "drain_max_deliveries" {
  description = "DRAIN_MAX_DELIVERIES: the most deliveries one drain execution claims, shared equally by its tasks. An execution that reaches it ends before drain_run_seconds and nothing polls until the next minute, so it caps the drain at about drain_max_deliveries / 60 deliveries per second (100,000: about 1,667/s)."
  type        = number
  default     = 100000
  validation {
    condition     = var.drain_max_deliveries >= 1 && var.drain_max_deliveries == floor(var.drain_max_deliveries)
    error_message = "drain_max_deliveries is a whole number, at least 1."
  }
}

variable "alert_notification_channels" {
  description = "Monitoring notification channel ids (e.g. the on-call PagerDuty channel) the alerts notify, besides oncall_email's channel. In prod at least one of the two is required: an alert that notifies nobody is not an alert."
  type        = list(string)
  default     = []
  validation {
    condition     = var.environment != "prod" || length(var.alert_notification_channels) > 0 || var.oncall_email != ""
    error_message = "prod needs alert_notification_channels or oncall_email: every alert would notify nobody."
  }
}

variable "oncall_email" {
  description = "The on-call group's email address; non-empty, Terraform makes it an email notification channel that every alert notifies."
  type        = string
  default     = ""
}

variable "rate_limit_per_minute" {
  description = "Cloud Armor: requests a minute one client IP address may send to the functions before it gets 429. A learner reviewing fast sends about 20 a minute, and a classroom shares its school's one NAT address: 1,200 lets 60 learners behind one address review at full speed."
  type        = number
  default     = 1200
}

variable "web_allowed_referrers" {
  description = "Referrers the web client's Identity Platform API key accepts; empty means https://<domain>/*."
  type        = list(string)
  default     = []
}

variable "runbook_url" {
  description = "Where docs/runbook.md is read; every alert's documentation links to its section there."
  type        = string
  default     = "https://github.com/lexora-app/lexora/blob/main/docs/runbook.md"
}

variable "delivery_age_alert_seconds" {
  description = "Alert when a drain run ends with a due delivery older than this."
  type        = number
  default     = 300
}

variable "delivery_freshness_seconds" {
  description = "The delivery freshness objective: a committed event's consequences delivered within this many seconds (measured as the oldest due delivery's age at the end of each drain run)."
  type        = number
  default     = 60
}

variable "function_5xx_ratio" {
  description = "Alert when a function answers more than this share of its requests with 5xx over 5 minutes."
  type        = number
  default     = 0.05
}

variable "function_latency_ms" {
  description = "Alert when a function's 99th percentile latency over 5 minutes is above this (its timeout is 10 s)."
  type        = number
  default     = 2000
}

variable "slo_availability" {
  description = "SubmitReview availability objective: the share of requests answered without a 5xx, over 28 days."
  type        = number
  default     = 0.999
}

variable "slo_latency_goal" {
  description = "SubmitReview latency objective: the share of requests answered within slo_latency_ms, over 28 days."
  type        = number
  default     = 0.99
}

variable "slo_latency_ms" {
  description = "SubmitReview latency objective's bound."
  type        = number
  default     = 500
}

variable "slo_freshness_goal" {
  description = "Delivery freshness objective: the share of drain runs whose oldest due delivery is within delivery_freshness_seconds, over 28 days."
  type        = number
  default     = 0.99
}
