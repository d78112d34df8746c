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

# The on-call group (var.operators) reads logs and metrics, for the
# runbook's queries (docs/runbook.md).
resource "google_project_iam_member" "operator_reads" {
  for_each = { for p in setproduct(var.operators, ["roles/logging.viewer", "roles/monitoring.viewer"]) : "${p[0]}/${p[1]}" => { member = p[0], role = p[1] } }
  project  = var.project_id
  role     = each.value.role
  member   = each.value.member
}
