# Cloud Run Jobs: drain, prune and fit (started by Cloud Scheduler), migrate
# (executed by Cloud Build before each rollout), seed (demo environment only).
# Each runs its own ko image (cloudbuild.yaml); Terraform creates them with
# var.image and Cloud Build sets each build's digest.
locals {
  jobs = merge(
    {
      # Loop mode: LISTEN hint plus polling for drain_run_seconds, just under
      # the one-minute period, so that one execution is polling nearly all
      # the time. No retries: the next execution, a minute later, is the
      # retry (a retried task would only overlap it).
      drain = {
        task_count  = var.drain_tasks
        parallelism = var.drain_tasks
        timeout     = local.drain_task_timeout_seconds
        max_retries = 0
        memory      = "512Mi"
        env = {
          DATABASE_MAX_CONNS    = tostring(local.conns.drain)
          DRAIN_MAX_DURATION    = "${var.drain_run_seconds}s"
          DRAIN_STOP_WHEN_IDLE  = "false"
          DRAIN_LISTEN          = "true"
          DRAIN_CONCURRENCY     = "8"
          DRAIN_HANDLER_TIMEOUT = "${local.drain_handler_timeout_seconds}s"
          DRAIN_MAX_DELIVERIES  = tostring(var.drain_max_deliveries)
          SMTP_HOST             = var.smtp.host
          SMTP_PORT             = tostring(var.smtp.port)
          SMTP_TLS              = "starttls"
          MAIL_FROM             = var.smtp.from
        }
        secrets = { SMTP_USERNAME = "smtp-username", SMTP_PASSWORD = "smtp-password" }
      }
      # Hourly, in paced batches, bounded to 25 of its 60 minutes, then a VACUUM of
      # at most 3 (PRUNE_VACUUM_TIMEOUT's default) inside the 30-minute timeout; one
      # retry for a transient failure.
      prune = {
        task_count  = 1
        parallelism = 1
        timeout     = 1800
        max_retries = 1
        memory      = "512Mi"
        env = {
          DATABASE_MAX_CONNS = tostring(local.conns.prune)
          PRUNE_MAX_DURATION = "25m"
        }
        secrets = {}
      }
      # Fits learners' own FSRS-6 parameters (jobs/fit, pkg/fitting), every
      # 30 minutes, bounded to 20 minutes and 500 learners per task, inside
      # the 25-minute timeout; the learners split among the tasks by hash.
      # No retry: the next execution is the retry, and an overlapping one
      # skips the learners being fitted.
      fit = {
        task_count  = var.fit_tasks
        parallelism = var.fit_tasks
        timeout     = 1500
        max_retries = 0
        memory      = "512Mi"
        env = {
          DATABASE_MAX_CONNS = tostring(local.conns.fit)
          FIT_MAX_DURATION   = "20m"
          FIT_MAX_LEARNERS   = "500"
        }
        secrets = {}
      }
      # The operators' tool (jobs/outboxctl): never scheduled; the on-call
      # group executes it with its arguments (docs/runbook.md), e.g.
      # `gcloud run jobs execute outboxctl --args=dead,list --wait`. One
      # task, no retry: a replay or skip is done once or not at all.
      outboxctl = {
        task_count  = 1
        parallelism = 1
        timeout     = 600
        max_retries = 0
        memory      = "512Mi"
        env         = { DATABASE_MAX_CONNS = tostring(local.conns.outboxctl) }
        secrets     = {}
      }
      # No retry: a failed migration stops the rollout for a human to look at.
      migrate = {
        task_count  = 1
        parallelism = 1
        timeout     = 900
        max_retries = 0
        memory      = "512Mi"
        # With local.provision_env (sql.tf), added in the resource below.
        env = {
          DATABASE_MAX_CONNS         = tostring(local.conns.migrate)
          DATABASE_STATEMENT_TIMEOUT = "10m"
          # Waits at most 10 s for a lock, so a migration never queues
          # traffic behind it for long (a start-up parameter: the role
          # settings cannot be changed by the migrate job, sql.tf).
          PGOPTIONS            = "-c lock_timeout=10s"
          MIGRATE_GRANT_ROLE   = "lexora_app"
          MIGRATE_OUTBOX_OWNER = "lexora_outbox_owner"
        }
        secrets = {}
      }
    },
    local.demo ? {
      seed = {
        task_count  = 1
        parallelism = 1
        timeout     = 600
        max_retries = 0
        memory      = "1Gi"
        env         = { DATABASE_MAX_CONNS = tostring(local.conns.seed) }
        secrets     = {}
      }
    } : {},
  )
}

resource "google_cloud_run_v2_job" "job" {
  for_each            = local.jobs
  name                = each.key
  location            = var.region
  deletion_protection = false
  # cloudbuild.yaml sets each build's image on every job with this label
  # (migrate first, on its own).
  labels = { lexora-role = "job" }

  template {
    task_count  = each.value.task_count
    parallelism = each.value.parallelism
    template {
      service_account = google_service_account.job[each.key].email
      timeout         = "${each.value.timeout}s"
      max_retries     = each.value.max_retries
      containers {
        image = var.job_image
        resources {
          limits = {
            cpu    = "1"
            memory = each.value.memory
          }
        }
        dynamic "env" {
          for_each = merge(local.database_env, each.value.env, each.key == "migrate" ? local.provision_env : {}, {
            DATABASE_URL = "user=${local.db_user["job-${each.key}"]} dbname=lexora sslmode=disable"
          })
          content {
            name  = env.key
            value = env.value
          }
        }
        dynamic "env" {
          for_each = each.value.secrets
          content {
            name = env.key
            value_source {
              secret_key_ref {
                secret  = google_secret_manager_secret.secret[env.value].secret_id
                version = "latest"
              }
            }
          }
        }
      }
    }
  }

  lifecycle {
    ignore_changes = [template[0].template[0].containers[0].image, client, client_version]
  }
  depends_on = [google_secret_manager_secret_iam_member.accessor, google_sql_user.workload, google_sql_user.terraform_admin]
}

# Operators may execute drain, prune and outboxctl by hand, with overrides (README.md
# "Running a drain, a prune or a replay by hand": `gcloud run jobs execute
# --wait --update-env-vars --task-timeout`). roles/run.invoker allows only a
# plain execution; roles/run.developer would also let them change and delete
# the jobs. This role allows running with overrides and following the
# execution, nothing else, and is bound on these two jobs only.
resource "google_project_iam_custom_role" "job_operator" {
  project     = var.project_id
  role_id     = "lexoraJobOperator"
  title       = "Lexora job operator"
  description = "Execute a Cloud Run job, with overrides, and follow its execution (bound per job)."
  permissions = [
    "run.jobs.get",
    "run.jobs.run",
    "run.jobs.runWithOverrides",
    "run.executions.get",
    "run.executions.list",
  ]
}

resource "google_cloud_run_v2_job_iam_member" "operator" {
  for_each = { for pair in setproduct(["drain", "prune", "fit", "outboxctl"], var.operators) : "${pair[0]}/${pair[1]}" => { job = pair[0], member = pair[1] } }
  name     = google_cloud_run_v2_job.job[each.value.job].name
  location = var.region
  role     = google_project_iam_custom_role.job_operator.name
  member   = each.value.member
}
