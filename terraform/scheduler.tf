# Cloud Scheduler starts drain every minute, prune hourly and fit every 30
# minutes through the Run Admin API (POST .../jobs/NAME:run) with an OAuth
# token of the scheduler's service account, which may run only these jobs.
locals {
  schedules = {
    drain = { schedule = local.drain_schedule, retries = 0 } # the next minute is the retry
    prune = { schedule = "17 * * * *", retries = 2 }         # hourly: a paced run removes ~11 million events (docs/scale.md)
    fit   = { schedule = "*/30 * * * *", retries = 0 }       # learners' parameters (pkg/fitting): the next half hour is the retry
  }
}

resource "google_cloud_run_v2_job_iam_member" "scheduler" {
  for_each = local.schedules
  name     = google_cloud_run_v2_job.job[each.key].name
  location = var.region
  role     = "roles/run.invoker" # includes run.jobs.run
  member   = "serviceAccount:${google_service_account.scheduler.email}"
}

resource "google_cloud_scheduler_job" "job" {
  for_each         = local.schedules
  name             = each.key
  region           = var.region
  schedule         = each.value.schedule
  time_zone        = "Etc/UTC"
  attempt_deadline = "30s"

  retry_config {
    retry_count = each.value.retries
  }

  http_target {
    http_method = "POST"
    uri         = "https://run.googleapis.com/v2/projects/${var.project_id}/locations/${var.region}/jobs/${google_cloud_run_v2_job.job[each.key].name}:run"
    oauth_token {
      service_account_email = google_service_account.scheduler.email
      scope                 = "https://www.googleapis.com/auth/cloud-platform"
    }
  }
  depends_on = [google_cloud_run_v2_job_iam_member.scheduler]
}
