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

# Cloud Scheduler's identity: may run the drain and prune jobs, nothing else.
resource "google_service_account" "scheduler" {
  account_id   = "scheduler"
  display_name = "Lexora Cloud Scheduler (runs drain and prune)"
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

# Connect through the connector (cloudsql.client) and log in as an IAM
# database user (cloudsql.instanceUser); the connector's client metrics need
# monitoring.metricWriter. Conditions cannot narrow these to one instance
# for the connector's calls, so each environment has its own project.
resource "google_project_iam_member" "db_client" {
  for_each = local.db_accounts
  project  = var.project_id
  role     = "roles/cloudsql.client"
  member   = "serviceAccount:${each.value}"
}

resource "google_project_iam_member" "db_instance_user" {
  for_each = local.db_accounts
  project  = var.project_id
  role     = "roles/cloudsql.instanceUser"
  member   = "serviceAccount:${each.value}"
}

resource "google_project_iam_member" "metric_writer" {
  for_each = local.db_accounts
  project  = var.project_id
  role     = "roles/monitoring.metricWriter"
  member   = "serviceAccount:${each.value}"
}

# Cloud Build: deploy Cloud Run (run.developer can update services and jobs
# and execute jobs but not change IAM), act as the runtime accounts it
# deploys, write logs.
resource "google_project_iam_member" "build" {
  for_each = toset(["roles/run.developer", "roles/logging.logWriter"])
  project  = var.project_id
  role     = each.value
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
