# The one image every service and job runs (ko-built, see cloudbuild.yaml).
resource "google_artifact_registry_repository" "images" {
  repository_id = "lexora"
  location      = var.region
  format        = "DOCKER"
  description   = "Lexora images, one per build, referenced by digest"

  cleanup_policies {
    id     = "keep-recent"
    action = "KEEP"
    most_recent_versions {
      keep_count = 30
    }
  }
  cleanup_policies {
    id     = "delete-old"
    action = "DELETE"
    condition {
      older_than = "7776000s" # 90 days; the 30 most recent stay for rollback
    }
  }
}

resource "google_artifact_registry_repository_iam_member" "build_writer" {
  repository = google_artifact_registry_repository.images.name
  location   = var.region
  role       = "roles/artifactregistry.writer"
  member     = "serviceAccount:${google_service_account.build.email}"
}

# Where `gcloud builds submit --gcs-source-staging-dir` uploads the source
# (README.md, first build): only Cloud Build reads it.
resource "google_storage_bucket" "build_source" {
  name                        = "${var.project_id}-build-source"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"
  # Uploaded sources go after 30 days; releases/ (deploy/rollout's image
  # lists, which deploy/rollback reads) stay.
  lifecycle_rule {
    condition {
      age            = 30
      matches_prefix = ["source/"]
    }
    action {
      type = "Delete"
    }
  }
}

resource "google_storage_bucket_iam_member" "build_source" {
  for_each = toset(["roles/storage.objectViewer", "roles/storage.objectCreator"])
  bucket   = google_storage_bucket.build_source.name
  role     = each.value
  member   = "serviceAccount:${google_service_account.build.email}"
}

# The on-call group lists the releases (docs/runbook.md, "Build failed");
# deployers read their image lists (deploy/rollback).
resource "google_storage_bucket_iam_member" "releases_reader" {
  for_each = toset(distinct(concat(var.operators, var.deployers)))
  bucket   = google_storage_bucket.build_source.name
  role     = "roles/storage.objectViewer"
  member   = each.value
}

moved {
  from = google_storage_bucket_iam_member.build_reads_source
  to   = google_storage_bucket_iam_member.build_source["roles/storage.objectViewer"]
}
