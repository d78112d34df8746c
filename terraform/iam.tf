# One service account per workload, each granted only what it needs.

resource "google_service_account" "function" {
  for_each     = local.fn
  account_id   = each.value.account
  display_name = "Lexora function ${each.key}"
}

resource "google_service_account" "job" {
  for_each     = toset(local.db_jobs)
  account_id   = "job-${each.key}"
  display_name = "Lexora job ${each.key}"
}

# Cloud Scheduler's identity: may run the drain, prune and fit jobs, nothing else.
resource "google_service_account" "scheduler" {
  account_id   = "scheduler"
  display_name = "Lexora Cloud Scheduler (runs drain, prune and fit)"
}

# Cloud Build's identity: pushes the image, updates and runs the services and
# jobs, publishes the web client.
resource "google_service_account" "build" {
  account_id   = "cloudbuild"
  display_name = "Lexora Cloud Build"
}

locals {
  # Every identity that connects to Cloud SQL, by workload.
  db_accounts = merge(
    { for f, sa in google_service_account.function : "fn-${lower(f)}" => sa.email },
    { for j, sa in google_service_account.job : "job-${j}" => sa.email },
  )
}

# What the Cloud SQL connector needs, and nothing more: the instance's
# metadata and an ephemeral certificate (get, connect) and the IAM database
# login (login). roles/cloudsql.client plus roles/cloudsql.instanceUser
# would also give cloudsql.instances.executeSql, with which any workload
# could run SQL through the Data API as its database user.
resource "google_project_iam_custom_role" "database_client" {
  project     = var.project_id
  role_id     = "lexoraDatabaseClient"
  title       = "Lexora database client"
  description = "Connect to Cloud SQL through the connector and log in with IAM database authentication."
  permissions = [
    "cloudsql.instances.connect",
    "cloudsql.instances.get",
    "cloudsql.instances.login",
  ]
}

# Conditions cannot narrow this to one instance for the connector's calls,
# so each environment has its own project. The connector's client metrics
# need monitoring.metricWriter.
resource "google_project_iam_member" "db_client" {
  for_each = local.db_accounts
  project  = var.project_id
  role     = google_project_iam_custom_role.database_client.name
  member   = "serviceAccount:${each.value}"
}

resource "google_project_iam_member" "metric_writer" {
  for_each = local.db_accounts
  project  = var.project_id
  role     = "roles/monitoring.metricWriter"
  member   = "serviceAccount:${each.value}"
}

# Cloud Build deploys (deploy/rollout) the function services and the jobs:
# run.developer on each of those, not on the project; at the project only
# listing them (the rollout finds them by label) and following operations;
# act as the runtime accounts it deploys; write logs.
resource "google_project_iam_custom_role" "build_lister" {
  project     = var.project_id
  role_id     = "lexoraBuildLister"
  title       = "Lexora build: list Cloud Run services and jobs"
  description = "List the Cloud Run services and jobs Cloud Build deploys, follow operations."
  permissions = [
    "run.services.list",
    "run.jobs.list",
    "run.operations.get",
  ]
}

resource "google_project_iam_member" "build" {
  # Static keys (a custom role's name is known only after apply); the log
  # writer keeps the key it had.
  for_each = { lister = google_project_iam_custom_role.build_lister.name, "roles/logging.logWriter" = "roles/logging.logWriter" }
  project  = var.project_id
  role     = each.value
  member   = "serviceAccount:${google_service_account.build.email}"
}

resource "google_cloud_run_v2_service_iam_member" "build" {
  for_each = google_cloud_run_v2_service.function
  name     = each.value.name
  location = var.region
  role     = "roles/run.developer"
  member   = "serviceAccount:${google_service_account.build.email}"
}

resource "google_cloud_run_v2_job_iam_member" "build" {
  for_each = google_cloud_run_v2_job.job
  name     = each.value.name
  location = var.region
  role     = "roles/run.developer"
  member   = "serviceAccount:${google_service_account.build.email}"
}

resource "google_service_account_iam_member" "build_acts_as_function" {
  for_each           = google_service_account.function
  service_account_id = each.value.name
  role               = "roles/iam.serviceAccountUser"
  member             = "serviceAccount:${google_service_account.build.email}"
}

resource "google_service_account_iam_member" "build_acts_as_job" {
  for_each           = google_service_account.job
  service_account_id = each.value.name
  role               = "roles/iam.serviceAccountUser"
  member             = "serviceAccount:${google_service_account.build.email}"
}

# The same deploy rights for var.deployers (deploy/rollback), per service
# and job, never on the project.
resource "google_cloud_run_v2_service_iam_member" "deployer" {
  for_each = { for p in setproduct(local.functions, var.deployers) : "${p[0]}/${p[1]}" => { fn = p[0], member = p[1] } }
  name     = google_cloud_run_v2_service.function[each.value.fn].name
  location = var.region
  role     = "roles/run.developer"
  member   = each.value.member
}

resource "google_cloud_run_v2_job_iam_member" "deployer" {
  for_each = { for p in setproduct(keys(local.jobs), var.deployers) : "${p[0]}/${p[1]}" => { job = p[0], member = p[1] } }
  name     = google_cloud_run_v2_job.job[each.value.job].name
  location = var.region
  role     = "roles/run.developer"
  member   = each.value.member
}

resource "google_service_account_iam_member" "deployer_acts_as_runtime" {
  for_each           = { for p in setproduct(concat([for f in local.functions : "fn/${f}"], [for j in local.db_jobs : "job/${j}"]), var.deployers) : "${p[0]}/${p[1]}" => { account = p[0], member = p[1] } }
  service_account_id = startswith(each.value.account, "fn/") ? google_service_account.function[trimprefix(each.value.account, "fn/")].name : google_service_account.job[trimprefix(each.value.account, "job/")].name
  role               = "roles/iam.serviceAccountUser"
  member             = each.value.member
}

# The on-call group (var.operators) reads logs and metrics, for the
# runbook's queries (docs/runbook.md), and the builds (roles/cloudbuild.builds.viewer:
# `gcloud builds list`, `gcloud builds log`).
resource "google_project_iam_member" "operator_reads" {
  for_each = { for p in setproduct(var.operators, ["roles/logging.viewer", "roles/monitoring.viewer", "roles/cloudbuild.builds.viewer"]) : "${p[0]}/${p[1]}" => { member = p[0], role = p[1] } }
  project  = var.project_id
  role     = each.value.role
  member   = each.value.member
}

# What else the runbook's commands need, and no more (runbook_test.go holds
# each command to a permission here): the scheduler's jobs, read and resumed
# (`gcloud scheduler jobs describe/resume`); every job's executions, listed
# and read (`gcloud run jobs executions list --job=…` lists at the region,
# so job-level bindings cannot allow it; this includes migrate's); the
# certificate (`gcloud compute ssl-certificates describe`); the releases
# deploy/rollback takes (`gcloud storage ls` of the build source bucket,
# registry.tf).
resource "google_project_iam_custom_role" "on_call" {
  project     = var.project_id
  role_id     = "lexoraOnCall"
  title       = "Lexora on-call"
  description = "Read and resume the Cloud Scheduler jobs, list Cloud Run job executions, read the load balancer's certificate."
  permissions = [
    "cloudscheduler.jobs.enable",
    "cloudscheduler.jobs.get",
    "cloudscheduler.jobs.list",
    "cloudscheduler.locations.list",
    "compute.sslCertificates.get",
    "compute.sslCertificates.list",
    "run.executions.get",
    "run.executions.list",
  ]
}

resource "google_project_iam_member" "on_call" {
  for_each = toset(var.operators)
  project  = var.project_id
  role     = google_project_iam_custom_role.on_call.name
  member   = each.value
}

# Who may deploy besides Cloud Build: var.deployers run deploy/rollback
# (README.md, "Rolling back"), which moves each function service's traffic
# and sets each job's image, as the rollout does. They get Cloud Build's
# deploy rights (the lister role at the project, run.developer on each
# service and job, acting as the runtime accounts), the releases' image lists
# (objectViewer on the build source bucket, registry.tf), and may start a
# build as Cloud Build's account (the web client's rollback re-runs an older
# commit's build). terraform_admin may start builds too: the README's first
# build is its `gcloud builds submit`.
locals {
  # The principals that may run a build as Cloud Build's account.
  build_submitters = merge(
    { terraform_admin = "${endswith(var.terraform_admin, ".gserviceaccount.com") ? "serviceAccount" : "user"}:${var.terraform_admin}" },
    { for d in var.deployers : d => d },
  )
}

resource "google_project_iam_member" "deployer" {
  # Static keys, as for Cloud Build's own (the custom role's name is known
  # only after apply).
  for_each = { for p in setproduct(var.deployers, ["lister", "roles/cloudbuild.builds.editor"]) : "${p[0]}/${p[1]}" => { member = p[0], role = p[1] } }
  project  = var.project_id
  role     = each.value.role == "lister" ? google_project_iam_custom_role.build_lister.name : each.value.role
  member   = each.value.member
}

resource "google_service_account_iam_member" "submits_as_build" {
  for_each           = local.build_submitters
  service_account_id = google_service_account.build.name
  role               = "roles/iam.serviceAccountUser"
  member             = each.value
}
